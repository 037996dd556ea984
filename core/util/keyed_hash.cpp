#include "core/util/keyed_hash.h"

#include <sodium.h>

#include <array>
#include <cstdlib>
#include <cstring>

namespace sawtooth {
namespace {

using Key = std::array<unsigned char, crypto_shorthash_KEYBYTES>;

const Key& processKey() {
  static const Key key = [] {
    // sodium_init seeds libsodium's generator from the kernel (getrandom); without it no key can be
    // drawn, and a fixed one would bring the flooding back.
    if (sodium_init() < 0) std::abort();
    Key k;
    crypto_shorthash_keygen(k.data());
    return k;
  }();
  return key;
}

}  // namespace

uint64_t keyedHash(const void* data, size_t size) {
  static const Key& key = processKey();
  unsigned char out[crypto_shorthash_BYTES];
  // An empty view may have no data pointer; SipHash reads nothing of it then.
  static const unsigned char kNothing = 0;
  crypto_shorthash(out, data ? static_cast<const unsigned char*>(data) : &kNothing, size, key.data());
  uint64_t h;
  std::memcpy(&h, out, sizeof h);
  return h;
}

uint64_t keyedHash64(uint64_t value) { return keyedHash(&value, sizeof value); }

}  // namespace sawtooth
