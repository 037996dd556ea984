#pragma once
// Reading whole files, and gunzipping them, with progress and cancellation.

#include <string>

#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// Extra zeroed capacity kept after the data so that simdjson can parse the buffer in place.
inline constexpr size_t kParsePadding = 64;

// Errors read "PATH: reason".
Result<std::string> readFileBytes(const std::string& path, Progress* progress = nullptr);
bool isGzip(const std::string& bytes);
// Errors read "reason" (the caller names the file).
Result<std::string> gunzip(const std::string& compressed, Progress* progress = nullptr);
// Reads a file and, when it is gzip-compressed, returns the decompressed bytes.
Result<std::string> readMaybeGzip(const std::string& path, Progress* progress = nullptr);
Status writeFileBytes(const std::string& path, const std::string& bytes);

}  // namespace sawtooth
