// sawtooth: the desktop app.
//   sawtooth [FILE...]                               open traces in tabs
//   sawtooth --export-png OUT.png FILE [--size WxH] [--x-axis index|time]
//                                                    render the timeline without a window and exit

#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <cstdio>
#include <cstdlib>

#include "app/sawtooth/headless_export.h"
#include "app/sawtooth/main_window.h"

namespace {

bool wantsHeadless(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--export-png" || std::string_view(argv[i]).rfind("--export-png=", 0) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // A headless export needs no display: without one, draw offscreen.
  if (wantsHeadless(argc, argv) && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") &&
      !std::getenv("QT_QPA_PLATFORM"))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Sawtooth"));
  QApplication::setApplicationName(QStringLiteral("sawtooth"));
  QApplication::setApplicationVersion(QStringLiteral(SAWTOOTH_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Sawtooth: GPU memory profiler and visualizer"));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption export_png(QStringLiteral("export-png"), QStringLiteral("Render the timeline of FILE to OUT (.png or .svg) and exit."),
                                QStringLiteral("OUT"));
  QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Image size for --export-png (default 1600x900)."),
                          QStringLiteral("WxH"), QStringLiteral("1600x900"));
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Open the FILEs in the window, wait until they are loaded, save a picture of "
                                               "the window to OUT and exit (README and docs screenshots)."),
                                QStringLiteral("OUT"));
  QCommandLineOption x_axis(QStringLiteral("x-axis"), QStringLiteral("index (default) or time."), QStringLiteral("AXIS"),
                            QStringLiteral("index"));
  parser.addOptions({export_png, size, x_axis, screenshot});
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Traces to open."), QStringLiteral("[FILE...]"));
  parser.process(app);

  if (parser.isSet(export_png)) {
    sawtooth::app::ExportOptions options;
    options.output = parser.value(export_png);
    if (parser.positionalArguments().size() != 1) {
      std::fprintf(stderr, "sawtooth: --export-png needs exactly one input file\n");
      return 2;
    }
    options.input = parser.positionalArguments().first();
    const auto m = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
    if (!m.hasMatch()) {
      std::fprintf(stderr, "sawtooth: --size takes WxH, e.g. 1600x900\n");
      return 2;
    }
    options.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    options.by_time = parser.value(x_axis) == QStringLiteral("time");
    return sawtooth::app::exportTimeline(options);
  }

  sawtooth::app::MainWindow window;
  for (const QString& path : parser.positionalArguments()) window.openFile(path);
  if (parser.isSet(screenshot)) {
    const auto m = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
    if (m.hasMatch()) window.resize(m.captured(1).toInt(), m.captured(2).toInt());
    window.show();
    return sawtooth::app::saveScreenshotWhenLoaded(window, parser.value(screenshot),
                                                   parser.value(x_axis) == QStringLiteral("time"));
  }
  window.show();
  return app.exec();
}
