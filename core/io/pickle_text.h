#pragma once
// Renders a pickled value as compact JSON text (for metadata such as allocator settings).

#include <string>

#include "core/io/pickle_document.h"

namespace sawtooth::pickle {

// `saw_handle` (optional) is set when the value holds a reader's typed object, which has no text.
std::string toText(const Document& doc, const Value& value, int max_depth = 16, bool* saw_handle = nullptr);

}  // namespace sawtooth::pickle
