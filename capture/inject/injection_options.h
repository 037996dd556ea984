#pragma once
// What sawtooth-record asks of the injected CUPTI library: the keys it reads from SAWTOOTH_OPTIONS
// (the JSON object the recorder puts in the program's environment). The library links CUPTI and
// the C runtime only, so it reads its two keys by hand; a value it does not understand keeps the
// default.

#include <cstdlib>
#include <cstring>

namespace sawtooth::inject {

struct InjectionOptions {
  int sample_interval_ms = 50;  // device memory samples
  bool kernels = true;          // CUPTI's kernel records
};

namespace detail {
// Where `key`'s value starts (spaces after the colon skipped), or nullptr.
inline const char* valueOf(const char* json, const char* key) {
  const char* at = std::strstr(json, key);
  if (!at) return nullptr;
  at += std::strlen(key);
  while (*at == ' ') ++at;
  if (*at != ':') return nullptr;
  ++at;
  while (*at == ' ') ++at;
  return at;
}
}  // namespace detail

inline InjectionOptions parseInjectionOptions(const char* json) {
  InjectionOptions o;
  if (!json) return o;
  if (const char* v = detail::valueOf(json, "\"sample_interval_ms\"")) {
    const int ms = std::atoi(v);
    if (ms >= 5 && ms <= 60'000) o.sample_interval_ms = ms;
  }
  if (const char* v = detail::valueOf(json, "\"kernels\"")) o.kernels = std::strncmp(v, "false", 5) != 0;
  return o;
}

}  // namespace sawtooth::inject
