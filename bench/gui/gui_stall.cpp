// The longest stall of the GUI thread while the app opens, filters, sorts, compares and exports a
// large trace, measured two ways:
//   - wall: a 1 ms precise timer on the GUI thread records the largest gap between its ticks (a
//     tick cannot fire while the event loop is blocked) — what a user sees, but on a busy machine
//     it also counts the time the OS gave the GUI thread's core to other processes;
//   - CPU: the GUI thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) spent between two ticks, at most
//     — the work done on the GUI thread while the window could not respond, whatever the
//     machine's load (time the OS gave to other processes, or spent waiting, is not counted).
// The largest CPU time of one event handled is printed as well.
// Not a benchmark of speed: of how long the window stays frozen. Prints one Markdown row per step.
//
//   sawtooth_gui_stall TRACE [--csv-dir DIR]       (QT_QPA_PLATFORM=offscreen works)
//
// It drives the real MainWindow through the same calls a user's clicks make; steps whose work
// runs as jobs (the app's job runner) are waited for until the runner is idle.

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <ctime>
#include <cstdio>
#include <functional>

#include "app/sawtooth/main_window.h"
#include "views/events_table_model.h"

#if __has_include("app/sawtooth/job_runner.h")
#include "app/sawtooth/job_runner.h"
#define SAWTOOTH_HAS_JOB_RUNNER 1
#endif

namespace {

using sawtooth::app::MainWindow;
using sawtooth::views::TraceTab;

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Times every event the GUI thread handles (the outermost only: nested event loops count once).
class TimedApplication : public QApplication {
 public:
  using QApplication::QApplication;
  bool notify(QObject* receiver, QEvent* event) override {
    if (depth_++ > 0) {
      const bool r = QApplication::notify(receiver, event);
      --depth_;
      return r;
    }
    const double t0 = threadCpuMs();
    const bool r = QApplication::notify(receiver, event);
    longest_ = std::max(longest_, threadCpuMs() - t0);
    --depth_;
    return r;
  }
  double longest_ = 0;

 private:
  int depth_ = 0;
};

class StallProbe : public QObject {
 public:
  StallProbe() {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(1);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const qint64 now = clock_.nsecsElapsed();
      const double cpu = threadCpuMs();
      max_gap_ns_ = std::max(max_gap_ns_, now - last_ns_);
      max_gap_cpu_ms_ = std::max(max_gap_cpu_ms_, cpu - last_cpu_ms_);
      if (now - last_ns_ > 50'000'000) ++over_50ms_;
      last_ns_ = now;
      last_cpu_ms_ = cpu;
    });
    clock_.start();
    timer_.start();
  }
  void reset() {
    last_ns_ = clock_.nsecsElapsed();
    last_cpu_ms_ = threadCpuMs();
    max_gap_ns_ = 0;
    max_gap_cpu_ms_ = 0;
    over_50ms_ = 0;
  }
  double maxStallCpuMs() {
    max_gap_cpu_ms_ = std::max(max_gap_cpu_ms_, threadCpuMs() - last_cpu_ms_);
    return max_gap_cpu_ms_;
  }
  // The gap still open when the step ends counts too.
  double maxStallMs() {
    max_gap_ns_ = std::max(max_gap_ns_, clock_.nsecsElapsed() - last_ns_);
    return static_cast<double>(max_gap_ns_) / 1e6;
  }
  int stallsOver50ms() const { return over_50ms_; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ns_ = 0;
  qint64 max_gap_ns_ = 0;
  double last_cpu_ms_ = 0;
  double max_gap_cpu_ms_ = 0;
  int over_50ms_ = 0;
};

bool idle(MainWindow& w) {
#ifdef SAWTOOTH_HAS_JOB_RUNNER
  return w.jobs()->isIdle();
#else
  (void)w;
  return true;
#endif
}

// The events table shows the rows of this filter and sort (they arrive from a job; a build
// without jobs filters and sorts before the call returns).
bool showing(TraceTab* tab, const char* filter, int sort, bool descending) {
#ifdef SAWTOOTH_HAS_JOB_RUNNER
  const auto& q = tab->events()->model()->rows().query;
  return !tab->events()->waitingForRows() && q.filter == filter && q.sort == static_cast<sawtooth::EventColumn>(sort) &&
         q.descending == descending;
#else
  (void)tab, (void)filter, (void)sort, (void)descending;
  return true;
#endif
}

// Runs the event loop until done() (checked every 5 ms) or the timeout.
void waitUntil(const std::function<bool()>& done, int timeout_ms = 600000) {
  QEventLoop loop;
  QTimer poll;
  QElapsedTimer clock;
  clock.start();
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (done() || clock.elapsed() > timeout_ms) loop.quit();
  });
  poll.start(5);
  if (!done()) loop.exec();
}

}  // namespace

int main(int argc, char** argv) {
  TimedApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE\n", argv[0]);
    return 2;
  }
  const QString trace = QFileInfo(QString::fromLocal8Bit(argv[1])).absoluteFilePath();
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("SawtoothGuiStall"));
  QSettings().clear();
  QSettings().setValue(QStringLiteral("firstStartDone"), true);
  QTemporaryDir out;

  MainWindow w(QString(), out.path());
  w.resize(1400, 900);
  w.show();
  StallProbe probe;
  TraceTab* tab = nullptr;

  std::printf("| step | wall (s) | longest GUI stall, wall (ms) | stalls > 50 ms | longest GUI stall, CPU (ms) | "
              "longest event, CPU (ms) |\n|---|---:|---:|---:|---:|---:|\n");
  auto step = [&](const char* name, const std::function<void()>& start, const std::function<bool()>& done) {
    QElapsedTimer wall;
    wall.start();
    probe.reset();
    app.longest_ = 0;
    const double t0 = threadCpuMs();
    start();
    const double start_cpu = threadCpuMs() - t0;
    waitUntil([&] { return done() && idle(w); });
    // 200 ms more: what the step left queued (a model reset, a repaint) counts to it.
    waitUntil([] { return false; }, 200);
    std::printf("| %s | %.2f | %.1f | %d | %.1f | %.1f |\n", name, static_cast<double>(wall.elapsed()) / 1e3,
                probe.maxStallMs(), probe.stallsOver50ms(), probe.maxStallCpuMs(), std::max(start_cpu, app.longest_));
    std::fflush(stdout);
  };
  auto always = [] { return true; };

  step("open", [&] { tab = w.openFile(trace); }, [&] { return tab->state() != TraceTab::State::Loading; });
  if (tab->state() != TraceTab::State::Ready) {
    std::fprintf(stderr, "could not open %s: %s\n", qPrintable(trace), qPrintable(tab->errorText()));
    return 1;
  }
  auto* filter = tab->events()->filterEdit();
  auto* table = tab->events()->table();
  using Column = sawtooth::views::EventsTableModel;
  const char* kFilter = "free_completed size>=1MB";
  step("filter `free_completed size>=1MB`", [&] { filter->setText(QString::fromLatin1(kFilter)); },
       [&] { return showing(tab, kFilter, Column::Index, false); });
  step("sort by size, descending", [&] { table->sortByColumn(sawtooth::views::EventsTableModel::Size, Qt::DescendingOrder); },
       [&] { return showing(tab, kFilter, Column::Size, true); });
  step("clear the filter (10 M rows, sorted)", [&] { filter->setText(QString()); },
       [&] { return showing(tab, "", Column::Size, true); });
  step("sort by time", [&] { table->sortByColumn(sawtooth::views::EventsTableModel::Time, Qt::AscendingOrder); },
       [&] { return showing(tab, "", Column::Time, false); });
  step("x axis in time", [&] { tab->setXAxisByTime(true); }, always);
  step("export the events table as CSV", [&] { w.exportCsv(QStringLiteral("table"), out.filePath("table.csv")); }, always);
  step("export events as CSV", [&] { w.exportCsv(QStringLiteral("events"), out.filePath("events.csv")); }, always);
  step("export the chart as PNG", [&] { w.exportChart(out.filePath("chart.png")); }, always);
  step("compare the trace with itself", [&] { w.compare(tab, tab); }, always);
  std::printf("\n(trace: %s, %lld events)\n", qPrintable(QFileInfo(trace).fileName()),
              static_cast<long long>(tab->events()->model()->totalEvents()));
  return 0;
}
