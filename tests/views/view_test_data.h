#pragma once
// Traces for the view tests: loaded and analysed here with core (as the app's jobs do), then handed
// to the views through their setters.

#include <QString>
#include <QtGlobal>
#include <memory>

#include "core/analysis/trace_report.h"
#include "core/io/trace_loader.h"

namespace sawtooth::test {

inline std::shared_ptr<const TraceReport> loadReport(const QString& path) {
  auto trace = loadTrace(path.toStdString());
  if (!trace) qFatal("%s", trace.error().message.c_str());
  return buildTraceReport(std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(*trace))));
}

inline std::shared_ptr<const TraceReport> fixture(const char* name) {
  return loadReport(QStringLiteral(SAWTOOTH_TEST_DATA "/") + QLatin1String(name));
}

inline std::shared_ptr<const TraceReport> sample(const char* name) {
  return loadReport(QStringLiteral(SAWTOOTH_SAMPLES "/") + QLatin1String(name));
}

inline std::shared_ptr<const TraceAnalysis> analyse(Trace trace) {
  return std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(trace)));
}

}  // namespace sawtooth::test
