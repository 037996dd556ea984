#include "app/sawtooth/headless_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <cstdio>
#include <functional>

#include <QElapsedTimer>
#include <QPixmap>

#include "app/sawtooth/main_window.h"
#include "app/sawtooth/reading_limits.h"
#include "app/sawtooth/summary_timeline.h"
#include "app/sawtooth/trace_jobs.h"
#include "views/timeline_chart.h"

namespace sawtooth::app {
namespace {
int renderChart(views::TimelineChart& chart, const ExportOptions& options, const std::function<void(const char*)>& stage,
                const QString& failed);
}

int exportTimeline(const ExportOptions& options) {
  QElapsedTimer timer;
  timer.start();
  const bool timing = qEnvironmentVariableIsSet("SAWTOOTH_TIMING");
  auto stage = [&](const char* what) {
    if (timing) std::fprintf(stderr, "%-12s %6lld ms\n", what, static_cast<long long>(timer.restart()));
  };
  // No window to keep responsive: the load runs here, on this thread.
  Progress progress;
  // A .sawtooth file too large to read whole is drawn from its summaries (each frame read here).
  const QFileInfo info(options.input);
  if (info.suffix().compare(QStringLiteral("sawtooth"), Qt::CaseInsensitive) == 0 &&
      estimatedMemoryToReadWhole(static_cast<uint64_t>(info.size())) > wholeFileBudgetFromSettings()) {
    auto timeline = SummaryTimeline::open(options.input.toStdString(), readingLimitsFromSettings(), true, progress);
    if (!timeline) {
      std::fprintf(stderr, "sawtooth: %s\n", timeline.error().message.c_str());
      return 1;
    }
    auto overview = (*timeline)->refresh();
    if (!overview) {
      std::fprintf(stderr, "sawtooth: %s\n", overview.error().message.c_str());
      return 1;
    }
    stage("summaries");
    views::TimelineChart chart;
    QString failed;
    QObject::connect(&chart, &views::TimelineChart::frameRequested, &chart,
                     [&chart, &failed, t = *timeline](const TimelineRequest& request) {
                       auto frame = t->frame(request);
                       if (frame) chart.setFrame(std::move(*frame));
                       else failed = QString::fromStdString(frame.error().message);
                     });
    chart.setXAxisByTime(options.by_time);
    chart.setTitle(info.fileName());
    chart.setOverview(std::make_shared<const TimelineOverview>(std::move(*overview)));
    return renderChart(chart, options, stage, failed);
  }
  const auto report = loadTraceReport(options.input.toStdString(), progress, readingLimitsFromSettings());
  stage("load");
  if (!report) {
    std::fprintf(stderr, "sawtooth: %s\n", report.error().message.c_str());
    return 1;
  }
  views::TimelineChart chart;
  chart.setXAxisByTime(options.by_time);
  chart.setTitle(QFileInfo(options.input).fileName());
  chart.setPlanLines((*report)->plan_lines);
  chart.setAnalysis((*report)->analysis);
  if (const size_t left_out = chart.devicesLeftOut(); left_out > 0)
    chart.setTitle(QStringLiteral("%1 — the %2 devices with the largest peaks, of %L3")
                       .arg(QFileInfo(options.input).fileName())
                       .arg(views::TimelineChart::kMaxDrawnDevices)
                       .arg(left_out + views::TimelineChart::kMaxDrawnDevices));
  stage("chart");
  return renderChart(chart, options, stage, {});
}

namespace {
int renderChart(views::TimelineChart& chart, const ExportOptions& options, const std::function<void(const char*)>& stage,
                const QString& failed) {
  // Shown but never on screen, so that Qt lays the chart out at the requested size; with updates
  // off, nothing is painted before the one rendering into the image.
  chart.setAttribute(Qt::WA_DontShowOnScreen);
  chart.setUpdatesEnabled(false);
  chart.resize(options.size);
  chart.show();
  QCoreApplication::processEvents();
  stage("layout");
  if (!failed.isEmpty()) {
    std::fprintf(stderr, "sawtooth: %s: %s\n", qPrintable(options.input), qPrintable(failed));
    return 1;
  }
  const bool ok = options.output.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)
                      ? chart.saveSvg(options.output, options.size)
                      : chart.savePng(options.output, options.size);
  stage("render+save");
  if (!ok) {
    std::fprintf(stderr, "sawtooth: %s: cannot write the image\n", qPrintable(options.output));
    return 1;
  }
  return 0;
}
}  // namespace

int saveScreenshotWhenLoaded(MainWindow& window, const ScreenshotOptions& options) {
  QElapsedTimer clock;
  clock.start();
  auto busy = [&] {
    if (window.workloadPanel()->catalogPending() || !window.jobs()->isIdle()) return true;
    for (auto* tab : window.traceTabs())
      if (tab->state() == views::TraceTab::State::Loading) return true;
    return false;
  };
  while (busy() && clock.elapsed() < 120000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  const auto tabs = window.traceTabs();
  // A screenshot of a file that did not open is not the picture asked for.
  for (auto* tab : tabs)
    if (tab->state() != views::TraceTab::State::Ready && tab->state() != views::TraceTab::State::Summaries) {
      std::fprintf(stderr, "sawtooth: %s: %s\n", qPrintable(tab->path()),
                   qPrintable(tab->state() == views::TraceTab::State::Loading ? QStringLiteral("still loading after 120 s")
                                                                                : tab->errorMessage()));
      return 1;
    }
  for (auto* tab : tabs) tab->setXAxisByTime(options.by_time);
  using View = views::TraceTab::View;
  const std::pair<const char*, View> views[] = {{"timeline", View::Timeline}, {"plan", View::Plan},
                                                {"peaks", View::Peaks},       {"precision", View::Precision},
                                                {"runs", View::Runs},         {"oom", View::OutOfMemory},
                                                {"allocator", View::Allocator}, {"live", View::LiveBytes},
                                                {"modules", View::Modules}};
  for (const auto& [name, view] : views)
    if (options.view == QLatin1String(name))
      for (auto* tab : tabs) tab->showView(view);
  if (options.stacked)
    for (auto* tab : tabs) tab->setStackedCategories(true);
  if (const QStringList range = options.zoom.split(QLatin1Char(':')); range.size() == 2)
    for (auto* tab : tabs) {
      const double scale = options.by_time ? 1e6 : 1;  // ms on the time axis
      tab->timeline()->zoomTo(range[0].toDouble() * scale, range[1].toDouble() * scale);
    }
  if (options.view == QLatin1String("ladder")) window.showLadder();
  if ((options.view == QLatin1String("compare") || options.view == QLatin1String("sites")) && tabs.size() >= 2)
    if (auto* compare = window.compare(tabs[0], tabs[1])) {
      if (options.align == QLatin1String("time")) compare->setAlignment(Alignment::Time);
      if (options.align == QLatin1String("step")) compare->setAlignment(Alignment::Step);
      if (options.view == QLatin1String("sites")) window.currentComparison()->showSites();
    }
  // Let the window settle (layouts, first paint, the comparison, call sites, lanes or allocator
  // state a view asked for: every such job runs in the window's runner).
  QElapsedTimer settle;
  settle.start();
  while ((settle.elapsed() < 500 || !window.jobs()->isIdle()) && settle.elapsed() < 120000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  if (!window.grab().save(options.path)) {
    std::fprintf(stderr, "sawtooth: %s: cannot write the screenshot\n", qPrintable(options.path));
    return 1;
  }
  return 0;
}

}  // namespace sawtooth::app
