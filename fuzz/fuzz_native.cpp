// libFuzzer target: the .sawtooth reader on SQLite files built from mutated schemas and rows.
// The first byte of an input picks how the file is made, the rest is mutated:
//   0: the format's own schema (io/native_schema), then the input run as SQL (rows, and changes
//      to the schema: views, retyped columns, triggers, generated columns, ...);
//   1: the input run as SQL on an empty database (any schema at all);
//   2: the input is the database file itself (seeds: small real files with 512-byte pages).
// The file is then read as a user's would be (readNative, then everything the programs do with a
// trace, through loadTrace: the value checks and anomalies too), then, when it reads, on demand from
// its summaries as a file past the whole-file budget is. Any input must give an error value or a
// trace: never a crash, a sanitizer report, a hang, unbounded memory, or a file written beside the
// input.

#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/analysis/fragmentation_frame.h"
#include "core/analysis/overlay_comparison.h"
#include "core/analysis/summary_module_costs.h"
#include "core/analysis/summary_report.h"
#include "core/io/file_moments.h"
#include "core/io/native_schema.h"
#include "core/io/trace_loader.h"
#include "fuzz/exercise_trace.h"

namespace {

namespace fs = std::filesystem;

const fs::path& folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("sawtooth-fuzz-native-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(fs::temp_directory_path() / ("sawtooth-fuzz-native-" + std::to_string(::getpid())), ignored);
    });
    return d;
  }();
  return dir;
}

void removeAll(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

// The file read on demand, as one past the whole-file budget is: its summaries (built into the
// fuzzer's own cache when it has none, or when they disagree with its events), the moment at its
// largest peak and the views made of it, the step's module costs, what each site allocated, the
// events table sorted by phase, the report's pass (category peaks, the first OOM's post-mortem),
// the out-of-memory index and its post-mortem, the fragmentation chart (its extent, a frame zoomed
// out and one at event level, replayed), and the file overlaid with itself as a comparison draws it.
void exerciseOnDemand(const std::string& path, const sawtooth::ReadLimits& limits) {
  using namespace sawtooth;
  auto file = openFileMoments(path, limits);
  if (!file) return;
  if (auto sorted = file->pages->select(EventQuery{"", EventColumn::Phase, true}))
    (void)file->pages->page(*sorted, 0, 64);
  if (auto facts = wholeTraceFacts(file->model->source(), file->tables())) {  // from the indexes where they are
    TraceReport report = runFiguresReport(file->tables());
    (void)addWholeTraceFigures(report, *file->model, file->tables(), *facts);
  }
  (void)wholeTraceFactsByPass(file->model->source(), file->tables());
  if (auto indexed = indexedOoms(file->model->source()); indexed && *indexed && (*indexed)->first_oom)
    (void)oomPostMortem(*file->model, file->tables(), *(*indexed)->first_oom);
  auto device = file->largestPeakDevice();
  if (!device || !*device) return;
  if (auto extent = fragmentationExtent(*file->model, **device); extent && *extent) {
    for (bool by_time : {false, true}) {
      const double lo = (*extent)->xMin(by_time), hi = (*extent)->xMax(by_time);
      (void)fragmentationFrame(*file->model, {1, **device, by_time, lo, hi + 1, 64}, &file->tables());
      (void)fragmentationFrame(*file->model, {2, **device, by_time, lo, lo + (hi - lo) / 64 + 1, 32}, &file->tables());
      (void)fragmentationPositionAt(*file->model, **device, (lo + hi) / 2, by_time);
    }
  }
  if (auto pages = EventPages::open(path, limits)) {
    auto a = openFileMoments(path, limits), b = openFileMoments(path, limits);
    if (a && b) {
      OverlaySide sa{std::shared_ptr<summary::SummarySource>(&a->model->source(), [](summary::SummarySource*) {}),
                     (*pages)->tables(), "a", {}};
      OverlaySide sb{std::shared_ptr<summary::SummarySource>(&b->model->source(), [](summary::SummarySource*) {}),
                     (*pages)->tables(), "b", {}};
      for (Alignment alignment : {Alignment::EventIndex, Alignment::Step})
        if (auto overlay = overlayTraces(sa, sb, alignment)) {
          TimelineRequest request;
          request.by_time = overlay->by_time;
          request.x0 = overlay->model->xMin(request.by_time);
          request.x1 = overlay->model->xMax(request.by_time);
          request.columns = 64;
          (void)frameOf(*overlay->model, request);
        }
    }
  }
  auto moment = file->at(**device, std::nullopt);
  if (!moment) return;
  (void)liveBytesOf(file->tables(), *moment);
  (void)segmentMapOf(file->tables(), *moment);
  (void)modulesWithStepCosts(*file->model, file->tables(), *moment);
  (void)allocatedTotalsFromSummaries(file->model->source(), **device);
}

// Building the file is bounded too: the fuzzer's SQL must not hang or fill the disk here.
int stopBuilding(void* steps) { return ++*static_cast<long*>(steps) > 2000; }

bool build(const std::string& path, uint8_t mode, const std::string& body) {
  if (mode == 2) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    std::fwrite(body.data(), 1, body.size(), f);
    std::fclose(f);
    return true;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  long steps = 0;
  sqlite3_progress_handler(db, 1000, stopBuilding, &steps);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_exec(db, "PRAGMA page_size=512", nullptr, nullptr, nullptr);
  if (mode == 0) {
    std::string base = sawtooth::native::schemaSql();
    base += "INSERT INTO meta VALUES('format_version', '" + std::to_string(sawtooth::native::kFormatVersion) + "');";
    sqlite3_exec(db, base.c_str(), nullptr, nullptr, nullptr);
  }
  steps = 0;
  sqlite3_exec(db, body.c_str(), nullptr, nullptr, nullptr);  // errors are part of the game
  sqlite3_close(db);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sawtooth;
  if (size < 1) return 0;
  // Summaries built for an input go into a cache of the fuzzer's own, emptied each time.
  static const fs::path cache = [] {
    const fs::path c = fs::temp_directory_path() / ("sawtooth-fuzz-native-cache-" + std::to_string(::getpid()));
    ::setenv("SAWTOOTH_CACHE_DIR", c.c_str(), 1);
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(fs::temp_directory_path() / ("sawtooth-fuzz-native-cache-" + std::to_string(::getpid())), ignored);
    });
    return c;
  }();
  std::error_code ignored;
  fs::remove_all(cache, ignored);
  const std::string path = (folder() / "input.sawtooth").string();
  removeAll(path);
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!build(path, static_cast<uint8_t>(data[0] % 3), body)) return 0;
  const auto files_before = std::distance(fs::directory_iterator(folder()), fs::directory_iterator());

  ReadLimits limits;
  limits.max_memory = uint64_t{512} << 20;
  limits.max_seconds = 5;
  auto trace = loadTrace(path, nullptr, limits);
  if (trace) {
    fuzz::exerciseTrace(*trace);
    exerciseOnDemand(path, limits);
  }

  // Reading never writes beside the input.
  const auto files_after = std::distance(fs::directory_iterator(folder()), fs::directory_iterator());
  if (files_after != files_before) {
    std::fprintf(stderr, "reading created files beside the input (%td before, %td after)\n", files_before, files_after);
    std::abort();
  }
  removeAll(path);
  return 0;
}
