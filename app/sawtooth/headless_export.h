#pragma once
// `sawtooth --export-png OUT.png FILE`: renders the timeline without showing a window.

#include <QSize>
#include <QString>

namespace sawtooth::app {

class MainWindow;

struct ExportOptions {
  QString output;
  QString input;
  QSize size{1600, 900};
  bool by_time = false;
};

// Returns a process exit code; prints one line naming the file and the reason on failure.
int exportTimeline(const ExportOptions& options);

struct ScreenshotOptions {
  QString path;
  bool by_time = false;
  QString view;          // timeline, plan, peaks, precision, runs, oom, ladder, compare (first two tabs)
  bool stacked = false;  // stack the timeline by category
  QString align;         // compare: "index" (default), "time" or "step"
  QString zoom;          // "LO:HI": the timeline zoomed to that range (event index, or ms on the time axis)
};

// Waits (running the event loop) until the workload list and every tab have loaded, shows the
// view asked for, then saves a picture of the real window. Returns a process exit code.
int saveScreenshotWhenLoaded(MainWindow& window, const ScreenshotOptions& options);

}  // namespace sawtooth::app
