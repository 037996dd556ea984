#include "app/sawtooth/headless_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <cstdio>

#include "views/timeline_chart.h"
#include "views/trace_load_job.h"

namespace sawtooth::app {

int exportTimeline(const ExportOptions& options) {
  const auto result = views::TraceLoadJob::loadNow(options.input);
  if (!result.analysis) {
    std::fprintf(stderr, "sawtooth: %s\n", qPrintable(result.error));
    return 1;
  }
  views::TimelineChart chart;
  // Shown but never on screen, so that Qt lays the chart out at the requested size.
  chart.setAttribute(Qt::WA_DontShowOnScreen);
  chart.resize(options.size);
  chart.setXAxisByTime(options.by_time);
  chart.setTitle(QFileInfo(options.input).fileName());
  chart.setAnalysis(result.analysis);
  chart.show();
  QCoreApplication::processEvents();
  const bool ok = options.output.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)
                      ? chart.saveSvg(options.output, options.size)
                      : chart.savePng(options.output, options.size);
  if (!ok) {
    std::fprintf(stderr, "sawtooth: %s: cannot write the image\n", qPrintable(options.output));
    return 1;
  }
  return 0;
}

}  // namespace sawtooth::app
