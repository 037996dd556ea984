#pragma once
// The scalar encodings of the pickle format that take more than a load: little-endian two's
// complement longs, protocol 0's quoted and escaped text, and the opcodes refused because they
// would import or call code.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sawtooth::pickle {

// LONG1/LONG4 payload (little-endian two's complement) as int64, or nullopt when it does not fit.
std::optional<int64_t> longToInt64(std::string_view bytes);
// The same payload as an unsigned 64-bit value (addresses, streams), or nullopt when it is
// negative or does not fit.
std::optional<uint64_t> longToUint64(std::string_view bytes);
// Decimal text of a big integer (for messages); at most `max_digits` digits, "..." beyond.
std::string longToDecimal(std::string_view bytes, size_t max_digits = 40);

// STRING's argument (a Python 2 repr with its quotes); nullopt and `why` when malformed.
std::optional<std::string> unquoteString(std::string_view line, std::string& why);
// UNICODE's argument (raw-unicode-escape: Latin-1 bytes except \uXXXX and \UXXXXXXXX) as UTF-8.
std::optional<std::string> decodeRawUnicode(std::string_view line, std::string& why);

// GLOBAL, REDUCE, BUILD, ...: the name of an opcode that would import or call Python code;
// nullptr for every other opcode.
const char* refusedOpcodeName(uint8_t op);

}  // namespace sawtooth::pickle
