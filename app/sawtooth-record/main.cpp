// sawtooth-record: records the memory of any program (`sawtooth-record [options] -- COMMAND`),
// or runs a built-in workload. It loads no LibTorch: a program recording needs none (the program
// brings its own torch), and every other command line is handed, by exec, to the workload runner
// sawtooth-workloads (LibTorch, from the sawtooth-recorder package) in BIN/../lib/sawtooth/.

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "app/sawtooth-record/program/posix_files.h"
#include "app/sawtooth-record/program/program_main.h"
#include "core/recording/exit_code.h"

namespace {

bool asksForHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sawtooth;
  if (record::isProgramRecording(argc, argv)) return record::recordProgramMain(argc, argv);
  if (asksForHelp(argc, argv)) {
    std::fputs(record::combinedHelp().c_str(), stdout);
    return 0;
  }
  if (argc == 1) {
    std::fprintf(stderr,
                 "%srecord a program: sawtooth-record [options] -- COMMAND [ARGS...], or choose a workload with "
                 "--workload NAME (see --list); --help says more\n",
                 std::string(recording::kMessagePrefix).c_str());
    return recording::code(recording::ExitCode::Usage);
  }
  const std::string runner = record::posix::parentOf(record::posix::parentOf(record::posix::thisExecutable())) + "/lib/sawtooth/sawtooth-workloads";
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  args[0] = const_cast<char*>(runner.c_str());
  execv(runner.c_str(), args.data());
  const int err = errno;
  std::fprintf(stderr,
               "%sthe built-in workloads need the sawtooth-recorder package (LibTorch): %s cannot be started (%s).\n"
               "To record your own program, which brings its own torch: sawtooth-record [options] -- COMMAND\n",
               std::string(recording::kMessagePrefix).c_str(), runner.c_str(), std::strerror(err));
  return recording::code(recording::ExitCode::Internal);
}
