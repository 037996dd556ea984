#include "app/sawtooth-record/program/support_files.h"

#include <fstream>

#include "app/sawtooth-record/program/posix_files.h"

namespace sawtooth::record {

SupportFiles findSupportFiles() {
  SupportFiles s;
  const std::string dir = posix::parentOf(posix::parentOf(posix::thisExecutable())) + "/lib/sawtooth";
  if (posix::isRegularFile(dir + "/python/sitecustomize.py")) s.python_dir = dir + "/python";
  else s.missing = dir + "/python/sitecustomize.py";
  if (posix::isRegularFile(dir + "/libsawtooth_cupti_inject.so")) s.cupti_library = dir + "/libsawtooth_cupti_inject.so";
  if (posix::isRegularFile(dir + "/libsawtooth_torch_tracker.so")) {
    s.tracker_library = dir + "/libsawtooth_torch_tracker.so";
    std::ifstream version(dir + "/libsawtooth_torch_tracker.torch");
    std::getline(version, s.tracker_torch);
  }
  return s;
}

}  // namespace sawtooth::record
