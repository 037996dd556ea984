#pragma once
// Renders a pickled value as compact JSON text (for metadata such as allocator settings).

#include <string>

#include "core/io/pickle_document.h"

namespace sawtooth::pickle {

std::string toText(const Document& doc, const Value& value, int max_depth = 16);

}  // namespace sawtooth::pickle
