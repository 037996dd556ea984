// The app opening a .sawtooth file's timeline from its summaries (issue 25): the real MainWindow,
// offscreen, from openFile() to the first frame drawn and painted, its peak RSS, then 1 % windows
// zoomed to across the run on the index axis, the time axis and the index axis with the stacked
// categories (zoomTo() until the window's frame is drawn and painted), and the longest GUI-thread
// stall throughout (a 1 ms timer's largest gap, and the GUI thread's CPU time in one event at most
// — as bench/gui/gui_stall.cpp measures it). Prints Markdown rows.
//
//   QT_QPA_PLATFORM=offscreen sawtooth_timeline_open FILE [ZOOMS] [WHOLE_FILE_BUDGET]
//
// Settings are a scratch organisation's: the whole-file budget is the default (2 GiB estimated), so
// a file past it opens from its summaries alone, as a user's would. WHOLE_FILE_BUDGET ("1M") sets
// it lower: a small recording (a real GPU run's devices and series) then opens from its summaries too.

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <map>
#include <ctime>
#include <random>
#include <sys/resource.h>

#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/main_window.h"
#include "app/sawtooth/reading_limits.h"

namespace {

using sawtooth::app::MainWindow;
using sawtooth::views::TimelineChart;
using sawtooth::views::TraceTab;

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

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
    // What the event was, before it is handled (a deferred delete ends its receiver).
    const char* cls = receiver->metaObject()->className();
    const QString name = receiver->objectName();
    const int type = event->type();
    QElapsedTimer wall;
    wall.start();
    during_.clear();
    const bool r = QApplication::notify(receiver, event);
    const double cpu = threadCpuMs() - t0;
    const double wall_ms = static_cast<double>(wall.nsecsElapsed()) / 1e6;
    interval_cpu_ += cpu;
    ++interval_events_;
    interval_wall_ += wall_ms;
    // The interval's heaviest events by wall time (a gap can hold hundreds of tiny ones).
    if (interval_.size() < kListed || wall_ms > interval_.back().wall_ms) {
      QString what = QStringLiteral("%1 to %2%3: %4 wall / %5 CPU")
                         .arg(type)
                         .arg(QString::fromLatin1(cls), name.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(name))
                         .arg(wall_ms, 0, 'f', 1)
                         .arg(cpu, 0, 'f', 1);
      if (!during_.isEmpty()) what += QStringLiteral(" delivering ") + during_.join(QStringLiteral(", "));
      const auto at = std::find_if(interval_.begin(), interval_.end(), [&](const Listed& l) { return l.wall_ms < wall_ms; });
      interval_.insert(at, Listed{wall_ms, what});
      if (interval_.size() > kListed) interval_.pop_back();
    }
    for (const QString& slot : during_) slowest_delivery_[slot] = std::max(slowest_delivery_[slot], cpu);
    if (cpu > longest_) {
      longest_ = cpu;
      longest_what_ = QStringLiteral("event type %1 to a %2%3, %4 ms wall")
                          .arg(type)
                          .arg(QString::fromLatin1(cls), name.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(name))
                          .arg(static_cast<double>(wall.nsecsElapsed()) / 1e6, 0, 'f', 0);
      if (!during_.isEmpty()) longest_what_ += QStringLiteral(", delivering ") + during_.join(QStringLiteral(", "));
    }
    --depth_;
    return r;
  }
  double longest_ = 0;
  QString longest_what_;  // the event that took longest_: its type, receiver's class and name, wall time
  QStringList during_;    // the jobs whose results the event being handled delivered
  std::map<QString, double> slowest_delivery_;  // job slot -> the GUI thread's CPU (ms) in its slowest delivery
  // Since the stall probe's last tick: the events handled and their CPU (ms).
  double interval_cpu_ = 0;
  int interval_events_ = 0;
  double interval_wall_ = 0;  // and their wall time
  struct Listed {
    double wall_ms;
    QString what;  // type, receiver's class and name, wall and CPU (ms), the jobs it delivered
  };
  static constexpr size_t kListed = 12;
  std::vector<Listed> interval_;  // the heaviest kListed, by wall time, heaviest first

 private:
  int depth_ = 0;
};

class StallProbe : public QObject {
 public:
  explicit StallProbe(TimedApplication& app) {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(1);
    connect(&timer_, &QTimer::timeout, this, [this, &app] {
      const qint64 now = clock_.nsecsElapsed();
      if (now - last_ns_ > max_gap_ns_)
        max_gap_ns_ = now - last_ns_, gap_end_ns_ = now, gap_cpu_ = app.interval_cpu_, gap_events_ = app.interval_events_,
        gap_wall_ = app.interval_wall_, gap_list_ = listed(app.interval_);
      last_ns_ = now;
      app.interval_cpu_ = 0, app.interval_events_ = 0, app.interval_wall_ = 0;
      app.interval_.clear();
    });
    clock_.start();
    timer_.start();
  }
  static QStringList listed(const std::vector<TimedApplication::Listed>& events) {
    QStringList out;
    for (const auto& e : events) out << e.what;
    return out;
  }
  double maxGapMs() const { return static_cast<double>(max_gap_ns_) / 1e6; }
  double gapEndMs() const { return static_cast<double>(gap_end_ns_) / 1e6; }  // since the probe started
  // The longest gap's events (those that ended inside it) and their CPU in all.
  int gapEvents() const { return gap_events_; }
  double gapCpuMs() const { return gap_cpu_; }
  double gapWallInEventsMs() const { return gap_wall_; }
  const QStringList& gapList() const { return gap_list_; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ns_ = 0;
  qint64 max_gap_ns_ = 0;
  qint64 gap_end_ns_ = 0;
  double gap_cpu_ = 0;
  int gap_events_ = 0;
  double gap_wall_ = 0;
  QStringList gap_list_;
};

// A chart over the summaries draws from frames computed off the GUI thread; over a trace read whole
// (a file inside the budget, once it is read) it draws each window at once.
bool drawn(TimelineChart* chart) { return chart->analysis() || (chart->frame() && !chart->frameComputing()); }

// Paint events the chart's viewport has had: a frame counts as shown once painted after it arrived.
class PaintCounter : public QObject {
 public:
  explicit PaintCounter(QWidget* viewport) { viewport->installEventFilter(this); }
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++paints_;
    return false;
  }
  int paints() const { return paints_; }

 private:
  int paints_ = 0;
};

// The longest time between two returns of the loop below (while opening): how long the GUI thread
// was away from its event loop, beside the timer's gap.
qint64 g_loop_gap_ns = 0;

// Events until `done`; false past 120 s.
template <typename F>
bool waitFor(F done) {
  QElapsedTimer t;
  t.start();
  qint64 last = 0;
  while (!done()) {
    g_loop_gap_ns = std::max(g_loop_gap_ns, t.nsecsElapsed() - last);
    last = t.nsecsElapsed();
    if (t.elapsed() > 120000) return false;
    // Blocking as the app's own loop does (the stall probe's timer wakes it every millisecond):
    // a loop that spins would take a core from the jobs it waits on.
    QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sawtooth_timeline_open FILE [ZOOMS] [WHOLE_FILE_BUDGET]\n");
    return 2;
  }
  TimedApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("sawtooth-bench"));
  QCoreApplication::setApplicationName(QStringLiteral("timeline-open"));
  QStandardPaths::setTestModeEnabled(true);
  QSettings().clear();
  // No samples opened at first start beside the file measured (they would load at the same time).
  QSettings().setValue(QStringLiteral("firstStartDone"), true);
  if (argc > 3) QSettings().setValue(QStringLiteral("limits/whole_file_budget"), QString::fromLocal8Bit(argv[3]));
  const QString path = QString::fromLocal8Bit(argv[1]);
  const int zooms = argc > 2 ? std::atoi(argv[2]) : 20;

  MainWindow w{QString(), QString()};
  w.resize(1400, 900);
  w.show();
  QCoreApplication::processEvents();
  // The workload catalog (sawtooth-record --list, a Python process) loads first: it would otherwise
  // run beside the file measured, on the same cores.
  waitFor([&] { return w.workloadPanel()->findChild<QProcess*>() == nullptr; });
  QCoreApplication::processEvents();
  QObject::connect(w.jobs(), &sawtooth::app::JobRunner::jobFinished, &app, [&app](quint64, const QString& slot, bool delivered) {
    if (delivered) app.during_.append(slot);
  });
  StallProbe probe(app);
  app.longest_ = 0;  // the window's own first layout and paint are not the file's
  const double rss_before = peakRssMb();

  QElapsedTimer clock;
  clock.start();
  const double open_cpu0 = processCpuMs();
  g_loop_gap_ns = 0;
  TraceTab* tab = w.openFile(path);
  const double tab_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  // A file past the budget gets an overview from its summaries; a smaller one is read whole.
  const auto shown = [&] {
    return tab->timeline()->overview() || tab->timeline()->analysis() || tab->state() == TraceTab::State::Failed;
  };
  if (!waitFor(shown)) return 1;
  const double overview_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  if (!waitFor([&] { return drawn(tab->timeline()) || tab->state() == TraceTab::State::Failed; })) return 1;
  const double frame_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  if (tab->state() == TraceTab::State::Failed) {
    std::fprintf(stderr, "%s\n", qPrintable(tab->errorMessage()));
    return 1;
  }
  PaintCounter painted(tab->timeline()->viewport());
  // Drawn, then painted: the paint that follows the frame (the event filter counts it when its
  // event arrives, so the paint itself is over once the next one is waited for or the loop idles).
  QElapsedTimer since_zoom;
  double drawn_ms = 0;  // from the last zoom (or wait) until its frame was drawn, before the paint
  auto drawnAndPainted = [&](TimelineChart* chart) {
    if (!waitFor([&] { return drawn(chart); })) return false;
    drawn_ms = static_cast<double>(since_zoom.nsecsElapsed()) / 1e6;
    const int before = painted.paints();
    chart->viewport()->update();
    return waitFor([&] { return painted.paints() > before; });
  };
  if (!drawnAndPainted(tab->timeline())) return 1;
  const double first_paint_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  const double rss_first = peakRssMb();
  const double open_cpu_ms = processCpuMs() - open_cpu0;
  const double loop_gap_open_ms = static_cast<double>(g_loop_gap_ns) / 1e6;
  const double stall_open = probe.maxGapMs(), cpu_open = app.longest_, stall_open_end = probe.gapEndMs();
  const QString what_open = app.longest_what_;

  // 1 % windows across the run, on the index axis, the time axis, then the index axis with the
  // live bytes stacked by category; each until its frame is drawn and painted.
  // What the harness calls itself (a user's click or wheel would run the same in one event): timed
  // apart, since the stall probe sees them as gaps but the event timer does not.
  double direct_longest_cpu = 0, direct_longest_wall = 0;
  QString direct_longest_what;
  auto direct = [&](const char* what, const auto& call) {
    QElapsedTimer wall;
    wall.start();
    const double cpu0 = threadCpuMs();
    call();
    const double cpu = threadCpuMs() - cpu0;
    if (cpu > direct_longest_cpu)
      direct_longest_cpu = cpu, direct_longest_wall = static_cast<double>(wall.nsecsElapsed()) / 1e6,
      direct_longest_what = QString::fromLatin1(what);
  };
  std::mt19937_64 random(25);
  std::vector<double> index_ms, time_ms, stacked_ms;
  std::vector<double> zoom_cpu_ms[3];  // the process' CPU time (every thread) per zoom: the work, whatever the load
  double slowest_zoom_ms = 0, slowest_zoom_drawn_ms = 0;  // the slowest zoom, and when its frame was drawn
  for (int pass = 0; pass < 3; ++pass) {
    const bool by_time = pass == 1;
    direct("setXAxisByTime", [&] { tab->setXAxisByTime(by_time); });
    if (pass == 2) direct("setStackedCategories", [&] { tab->setStackedCategories(true); });
    if (!drawnAndPainted(tab->timeline())) return 1;
    const double lo = tab->timeline()->window().boundsLo(), hi = tab->timeline()->window().boundsHi();
    const double width = (hi - lo) / 100;
    for (int i = 0; i < zooms; ++i) {
      const double at = lo + std::uniform_real_distribution<double>(0, 1)(random) * (hi - lo - width);
      since_zoom.start();
      const double cpu0 = processCpuMs();
      direct("zoomTo", [&] { tab->timeline()->zoomTo(at, at + width); });
      if (!drawnAndPainted(tab->timeline())) return 1;
      zoom_cpu_ms[pass].push_back(processCpuMs() - cpu0);
      const double ms = static_cast<double>(since_zoom.nsecsElapsed()) / 1e6;
      if (ms > slowest_zoom_ms) slowest_zoom_ms = ms, slowest_zoom_drawn_ms = drawn_ms;
      (pass == 0 ? index_ms : pass == 1 ? time_ms : stacked_ms).push_back(ms);
    }
    direct("resetZoom", [&] { tab->timeline()->resetZoom(); });
  }
  waitFor([&] { return w.jobs()->isIdle(); });
  auto slowest = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  const char* state = tab->state() == TraceTab::State::Summaries ? "summaries only"
                      : tab->state() == TraceTab::State::Ready  ? "every view"
                                                                 : "loading";
  std::printf("| file | opened with | openFile → first frame painted (ms) | peak RSS then (MB) | before opening (MB) | "
              "1 %% window, index axis: slowest / mean (ms) | time axis: slowest / mean (ms) | stacked categories, "
              "index axis: slowest / mean (ms) | longest GUI stall while opening, wall / CPU (ms) | longest GUI stall "
              "overall, wall / CPU (ms) | peak RSS at the end (MB) |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %s | %s | %.0f | %.0f | %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f |\n",
              qPrintable(QFileInfo(path).fileName()), state, first_paint_ms, rss_first, rss_before, slowest(index_ms),
              mean(index_ms), slowest(time_ms), mean(time_ms), slowest(stacked_ms), mean(stacked_ms), stall_open,
              cpu_open, probe.maxGapMs(), app.longest_, peakRssMb());
  std::printf("\nCPU time of the process (all threads) per 1 %% zoom, mean: index axis %.0f ms, time axis %.0f ms, "
              "stacked %.0f ms; opening until painted: %.0f ms\n",
              mean(zoom_cpu_ms[0]), mean(zoom_cpu_ms[1]), mean(zoom_cpu_ms[2]), open_cpu_ms);
  std::printf("\nopenFile returned after %.0f ms, the overview was shown at %.0f ms, the first frame drawn at %.0f ms, "
              "painted at %.0f ms; the longest stall while opening ended at %.0f ms; the event loop's longest "
              "absence while opening: %.0f ms\n",
              tab_ms, overview_ms, frame_ms, first_paint_ms, stall_open_end, loop_gap_open_ms);
  std::printf("\nThe GUI thread's longest event while opening: %s; overall: %s. The slowest zoom (%.0f ms): its frame "
              "drawn at %.0f ms, painted %.0f ms later.\n",
              qPrintable(what_open), qPrintable(app.longest_what_), slowest_zoom_ms, slowest_zoom_drawn_ms,
              slowest_zoom_ms - slowest_zoom_drawn_ms);
  std::printf("\nThe probe's longest gap overall (%.0f ms) held %d events of %.0f ms of the GUI thread's CPU and %.0f ms "
              "wall in all; the heaviest by wall: %s\n",
              probe.maxGapMs(), probe.gapEvents(), probe.gapCpuMs(), probe.gapWallInEventsMs(),
              qPrintable(probe.gapList().join(QStringLiteral("; "))));
  std::printf("\nThe longest of the harness' own calls (zoomTo, resetZoom, setXAxisByTime, setStackedCategories; "
              "outside any event, inside the probe's gaps): %s, %.0f ms wall / %.0f ms CPU\n",
              qPrintable(direct_longest_what), direct_longest_wall, direct_longest_cpu);
  std::printf("\nThe GUI thread's CPU in the slowest delivery of each job's result (ms):");
  for (const auto& [slot, ms] : app.slowest_delivery_) std::printf(" %s %.0f;", qPrintable(slot.section(QLatin1Char(' '), 1)), ms);
  std::printf("\n\n%s\n", qPrintable(tab->otherViewsText()));
  return 0;
}
