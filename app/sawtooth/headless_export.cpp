#include "app/sawtooth/headless_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <cstdio>

#include <QElapsedTimer>
#include <QPixmap>

#include "app/sawtooth/allocator_controller.h"
#include "app/sawtooth/main_window.h"
#include "views/timeline_chart.h"
#include "views/trace_load_job.h"

namespace sawtooth::app {

int exportTimeline(const ExportOptions& options) {
  QElapsedTimer timer;
  timer.start();
  const bool timing = qEnvironmentVariableIsSet("SAWTOOTH_TIMING");
  auto stage = [&](const char* what) {
    if (timing) std::fprintf(stderr, "%-12s %6lld ms\n", what, static_cast<long long>(timer.restart()));
  };
  const auto result = views::TraceLoadJob::loadNow(options.input);
  stage("load");
  if (!result.analysis) {
    std::fprintf(stderr, "sawtooth: %s\n", qPrintable(result.error));
    return 1;
  }
  views::TimelineChart chart;
  chart.setXAxisByTime(options.by_time);
  chart.setTitle(QFileInfo(options.input).fileName());
  chart.setAnalysis(result.analysis);
  stage("chart");
  // Shown but never on screen, so that Qt lays the chart out at the requested size; with updates
  // off, nothing is painted before the one rendering into the image.
  chart.setAttribute(Qt::WA_DontShowOnScreen);
  chart.setUpdatesEnabled(false);
  chart.resize(options.size);
  chart.show();
  QCoreApplication::processEvents();
  stage("layout");
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

int saveScreenshotWhenLoaded(MainWindow& window, const ScreenshotOptions& options) {
  QElapsedTimer clock;
  clock.start();
  auto busy = [&] {
    if (window.workloadPanel()->catalogPending()) return true;
    for (auto* tab : window.traceTabs())
      if (tab->state() == views::TraceTab::State::Loading) return true;
    return false;
  };
  while (busy() && clock.elapsed() < 120000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  const auto tabs = window.traceTabs();
  for (auto* tab : tabs) tab->setXAxisByTime(options.by_time);
  using View = views::TraceTab::View;
  const std::pair<const char*, View> views[] = {{"timeline", View::Timeline}, {"plan", View::Plan},
                                                {"peaks", View::Peaks},       {"precision", View::Precision},
                                                {"runs", View::Runs},         {"oom", View::OutOfMemory},
                                                {"allocator", View::Allocator}, {"live", View::LiveBytes}};
  for (const auto& [name, view] : views)
    if (options.view == QLatin1String(name))
      for (auto* tab : tabs) tab->showView(view);
  if (options.stacked)
    for (auto* tab : tabs) tab->setStackedCategories(true);
  if (options.view == QLatin1String("ladder")) window.showLadder();
  if ((options.view == QLatin1String("compare") || options.view == QLatin1String("sites")) && tabs.size() >= 2) {
    window.compare(tabs[0], tabs[1]);
    if (options.view == QLatin1String("sites")) window.tabs()->setCurrentIndex(window.tabs()->count() - 1);
  }
  // The allocator views' jobs (replay, segment map, live bytes, call-site diff) finish first.
  auto jobs = [&] {
    for (auto* c : window.findChildren<AllocatorController*>())
      if (c->busy()) return true;
    for (auto* s : window.findChildren<views::DiffSitesView*>())
      if (s->model()->rowCount() == 0 && s->summary()->text().endsWith(QStringLiteral("…"))) return true;
    return false;
  };
  while (jobs() && clock.elapsed() < 120000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  // Let the window settle (layouts, first paint) before taking the picture.
  QElapsedTimer settle;
  settle.start();
  while (settle.elapsed() < 500) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  if (!window.grab().save(options.path)) {
    std::fprintf(stderr, "sawtooth: %s: cannot write the screenshot\n", qPrintable(options.path));
    return 1;
  }
  return 0;
}

}  // namespace sawtooth::app
