#include "app/sawtooth-record/program/support_files.h"

#include <fstream>

#include "app/sawtooth-record/program/posix_files.h"

namespace sawtooth::record {

SupportFiles findSupportFiles() {
  SupportFiles s;
  const std::string dir = posix::parentOf(posix::parentOf(posix::thisExecutable())) + "/lib/sawtooth";
  if (posix::isRegularFile(dir + "/python/sitecustomize.py")) s.python_dir = dir + "/python";
  else s.missing = dir + "/python/sitecustomize.py";
  const std::string inject = dir + "/inject";
  if (posix::isRegularFile(inject + "/libsawtooth_cupti_inject.so")) s.cupti_library = inject + "/libsawtooth_cupti_inject.so";
  if (posix::isRegularFile(inject + "/libsawtooth_torch_tracker.so")) {
    s.tracker_library = inject + "/libsawtooth_torch_tracker.so";
    std::ifstream version(inject + "/libsawtooth_torch_tracker.torch");
    std::getline(version, s.tracker_torch);
  }
  return s;
}

}  // namespace sawtooth::record
