#pragma once
// The hash of every table whose keys come from a file (interned strings, frames and stacks,
// addresses, ids): SipHash-2-4 (libsodium's crypto_shorthash) under a key drawn at random once per
// process. A fixed hash can be inverted, and a file built so that all its keys share one hash makes
// every lookup walk all the others (100 k frames: minutes); without the key, no file can aim at a
// collision.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sawtooth {

uint64_t keyedHash(const void* data, size_t size);
inline uint64_t keyedHash(std::string_view text) { return keyedHash(text.data(), text.size()); }
uint64_t keyedHash64(uint64_t value);

// For std::unordered_map / unordered_set of keys read from a file: std::hash of an integer is the
// integer itself (a file can choose keys that fill one bucket), and of a string a fixed MurmurHash
// (whose collisions do not depend on its seed).
struct KeyedHash {
  size_t operator()(uint64_t value) const { return static_cast<size_t>(keyedHash64(value)); }
  size_t operator()(std::string_view text) const { return static_cast<size_t>(keyedHash(text)); }
};

}  // namespace sawtooth
