// sawtooth: the desktop app.
//   sawtooth [FILE...]                               open traces in tabs
//   sawtooth --export-png OUT.png|OUT.svg FILE [--size WxH] [--x-axis index|time]
//                                                    render the timeline without a window and exit
//   sawtooth --screenshot OUT.png [--size WxH] [--x-axis index|time] [--stacked]
//            [--view timeline|plan|peaks|precision|runs|oom|allocator|live|modules|ladder|compare|sites] [--align index|time|step]
//            [--zoom LO:HI] FILE...
//                                                    open the FILEs in the window, wait until they
//                                                    are loaded, save a picture of it and exit
//                                                    (non-zero when a file did not open)
// Appearance: the desktop's light or dark scheme, or Settings ▸ Appearance; SAWTOOTH_PALETTE=dark|light
// overrides both for one run.
// Logging: quiet by default; QT_LOGGING_RULES="sawtooth.*.debug=true" shows the jobs, the recorder's
// lines, the timeline's rebuilds.

#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <cstdio>
#include <cstdlib>

#include "app/sawtooth/appearance.h"
#include "app/sawtooth/headless_export.h"
#include "app/sawtooth/main_window.h"

int main(int argc, char** argv) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Sawtooth: GPU memory profiler and visualizer\n\n"
      "Exit codes: 0 ok, 1 a trace could not be read or a picture written, 2 bad arguments."));
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
  QCommandLineOption view(QStringLiteral("view"),
                          QStringLiteral("With --screenshot: timeline, plan, peaks, precision, runs, oom, allocator, live, modules, ladder, compare or sites."),
                          QStringLiteral("VIEW"));
  QCommandLineOption stacked(QStringLiteral("stacked"), QStringLiteral("With --screenshot: stack the timeline by category."));
  QCommandLineOption align(QStringLiteral("align"),
                           QStringLiteral("With --screenshot --view compare: line the traces up by index, time or step."),
                           QStringLiteral("ALIGN"), QStringLiteral("index"));
  QCommandLineOption x_axis(QStringLiteral("x-axis"), QStringLiteral("index (default) or time."), QStringLiteral("AXIS"),
                            QStringLiteral("index"));
  QCommandLineOption zoom(QStringLiteral("zoom"),
                          QStringLiteral("With --screenshot: zoom the timeline to LO:HI (event index, or ms with --x-axis time)."),
                          QStringLiteral("LO:HI"));
  parser.addOptions({export_png, size, x_axis, screenshot, view, stacked, align, zoom});
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Traces to open."), QStringLiteral("[FILE...]"));
  // Parsed once before the QApplication exists, to choose its platform: a headless export, the
  // help, the version and bad arguments (exit 2 below) need no display; without one, offscreen.
  QStringList raw_arguments;
  for (int i = 0; i < argc; ++i) raw_arguments << QString::fromLocal8Bit(argv[i]);
  const bool headless = !parser.parse(raw_arguments) || parser.isSet(export_png) || parser.isSet(QStringLiteral("help")) ||
                        parser.isSet(QStringLiteral("help-all")) || parser.isSet(QStringLiteral("version"));
  if (headless && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Sawtooth"));
  QApplication::setApplicationName(QStringLiteral("sawtooth"));
  QApplication::setApplicationVersion(QStringLiteral(SAWTOOTH_VERSION));
  // Light or dark as the desktop says, or as chosen in Settings ▸ Appearance; SAWTOOTH_PALETTE=dark
  // or light overrides both for this run (screenshots, a quick try).
  {
    using sawtooth::app::ColorScheme;
    const QString forced = qEnvironmentVariable("SAWTOOTH_PALETTE");
    sawtooth::app::applyColorScheme(forced == QLatin1String("dark")    ? ColorScheme::Dark
                                    : forced == QLatin1String("light") ? ColorScheme::Light
                                                                       : sawtooth::app::savedColorScheme());
  }

  // Parsed again once Qt has taken its own options (-platform, -style, ...) out of the arguments.
  // process() would exit with 1 on a bad one; bad arguments are 2. It prints --help, --help-all
  // and --version and exits.
  if (!parser.parse(QCoreApplication::arguments())) {
    std::fprintf(stderr, "sawtooth: %s\n", qPrintable(parser.errorText()));
    return 2;
  }
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
  for (const QString& path : parser.positionalArguments()) window.openOrFollow(path);
  if (parser.isSet(screenshot)) {
    const auto m = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
    if (m.hasMatch()) window.resize(m.captured(1).toInt(), m.captured(2).toInt());
    window.show();
    return sawtooth::app::saveScreenshotWhenLoaded(
        window, {parser.value(screenshot), parser.value(x_axis) == QStringLiteral("time"), parser.value(view),
                 parser.isSet(stacked), parser.value(align), parser.value(zoom)});
  }
  window.show();
  return app.exec();
}
