#include "bench/core/bench_data.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/io/native_format.h"
#include "core/io/trace_loader.h"

namespace sawtooth::bench {

std::string dataDir() {
  const char* dir = std::getenv("SAWTOOTH_BENCH_DATA");
  return dir && *dir ? dir : "build/bench-data";
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

std::string requireData(const std::string& name) {
  const std::string path = dataDir() + "/" + name;
  if (!exists(path)) {
    std::fprintf(stderr,
                 "missing %s: run bench/core/run_cpu_benchmarks.sh, or bench/core/gen_snapshot.py, and set "
                 "SAWTOOTH_BENCH_DATA to its folder\n",
                 path.c_str());
    std::exit(2);
  }
  return path;
}

size_t residentBytesAfterTrim() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

bool dropPageCache() {
  ::sync();
  std::ofstream f("/proc/sys/vm/drop_caches");
  if (!f) return false;
  f << "3\n";
  f.flush();
  return static_cast<bool>(f);
}

std::string native10mPath() { return dataDir() + "/trace_10m.sawtooth"; }

const Trace& trace10m() {
  static const std::unique_ptr<Trace> trace = [] {
    const std::string native = native10mPath();
    if (!exists(native)) {
      auto imported = loadTrace(requireData("snapshot_10m.pickle"));
      if (!imported) {
        std::fprintf(stderr, "%s\n", imported.error().message.c_str());
        std::exit(2);
      }
      if (Status st = writeNative(*imported, native + ".tmp"); !st) {
        std::fprintf(stderr, "%s\n", st.error().message.c_str());
        std::exit(2);
      }
      std::rename((native + ".tmp").c_str(), native.c_str());
      return std::make_unique<Trace>(std::move(*imported));
    }
    auto loaded = readNative(native);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
      std::exit(2);
    }
    return std::make_unique<Trace>(std::move(*loaded));
  }();
  return *trace;
}

}  // namespace sawtooth::bench
