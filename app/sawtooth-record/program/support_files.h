#pragma once
// The files program recording puts into the recorded program, found beside sawtooth-record:
// BIN/../lib/sawtooth/ holds python/ (the start-up shim) and inject/ (the CUPTI injection library
// and the allocator tracker, with the torch version it was built against), in the build tree as
// once installed.

#include <string>

namespace sawtooth::record {

struct SupportFiles {
  std::string python_dir;       // holds sitecustomize.py
  std::string cupti_library;    // libsawtooth_cupti_inject.so
  std::string tracker_library;  // libsawtooth_torch_tracker.so
  std::string tracker_torch;    // the torch version the tracker was built against
  std::string missing;          // what could not be found, for the message
};

SupportFiles findSupportFiles();

}  // namespace sawtooth::record
