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

// Waits (running the event loop) until every tab has loaded, then saves a picture of the real
// window. Returns a process exit code.
int saveScreenshotWhenLoaded(MainWindow& window, const QString& path, bool by_time);

}  // namespace sawtooth::app
