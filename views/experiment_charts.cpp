#include "views/experiment_charts.h"

#include <algorithm>

#include "core/analysis/axis_scale.h"
#include "core/analysis/result_text.h"
#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

const QColor kAllocated(0x1f, 0x77, 0xb4), kReserved(0xae, 0xc7, 0xe8), kPlan(0xbd, 0xbd, 0xbd), kMeasured(0x2e, 0x7d, 0x32),
    kTime(0x6a, 0x3d, 0x9a);

}  // namespace

QString signedPercent(double change) { return toQString(signedPercentText(change)); }

bool showPeakComparison(BarChart& chart, const std::vector<PeakGroup>& groups, const std::string& workload) {
  if (groups.empty()) return false;
  QStringList categories, annotations;
  BarSetData allocated{QObject::tr("peak allocated"), kAllocated, {}, {}, std::nullopt};
  BarSetData reserved{QObject::tr("peak reserved"), kReserved, {}, {}, std::nullopt};
  bool any_reserved = false;
  double most = 0;
  for (const PeakGroup& g : groups) most = std::max({most, g.peak_allocated, g.peak_reserved.value_or(0.0)});
  const ByteUnit unit = byteUnitFor(most);  // GB for a 4 GB peak, as the header writes it
  for (size_t i = 0; i < groups.size(); ++i) {
    const PeakGroup& g = groups[i];
    categories << toQString(g.run);
    allocated.values << g.peak_allocated / unit.bytes;
    QString tip = QObject::tr("<b>%1</b><br>peak allocated %2 (%L3 bytes)")
                      .arg(toQString(g.run), bytesText(static_cast<qint64>(g.peak_allocated)))
                      .arg(static_cast<qint64>(g.peak_allocated));
    if (g.time)
      tip += QObject::tr("<br>%1: median %2 ms (min %3, max %4, %5 samples, spread ±%6 %)")
                 .arg(toQString(g.time->name).replace('_', ' '))
                 .arg(g.time->median_ms, 0, 'f', 3)
                 .arg(g.time->min_ms, 0, 'f', 3)
                 .arg(g.time->max_ms, 0, 'f', 3)
                 .arg(g.time->samples)
                 .arg(g.time->spread() * 100, 0, 'f', 0);
    allocated.tooltips << tip;
    reserved.values << g.peak_reserved.value_or(0) / unit.bytes;
    reserved.tooltips << (g.peak_reserved ? QObject::tr("<b>%1</b><br>peak reserved %2 (%L3 bytes)")
                                                .arg(toQString(g.run), bytesText(static_cast<qint64>(*g.peak_reserved)))
                                                .arg(static_cast<qint64>(*g.peak_reserved))
                                          : QObject::tr("not recorded"));
    any_reserved = any_reserved || g.peak_reserved.has_value();
    if (i == 0) {
      annotations << QObject::tr("baseline");
    } else {
      QString text = QObject::tr("%1 peak").arg(signedPercent(g.allocated_change));
      // A time change only where it stands out of the spread; otherwise the label says it is noise.
      if (g.time_vs_baseline) text += QStringLiteral(" · ") + toQString(timeChangeText(*g.time_vs_baseline));
      annotations << text;
    }
  }
  QList<BarSetData> sets{allocated};
  if (any_reserved) sets << reserved;
  chart.setData(QObject::tr("Peak memory per run (%1)").arg(toQString(workload)), QObject::tr("peak (%1)").arg(toQString(unit.name)),
                categories,
                sets, annotations);
  return true;
}

bool showAnatomyPlan(BarChart& chart, const std::vector<PlanRow>& rows) {
  if (rows.empty()) return false;
  QStringList categories, annotations;
  BarSetData plan{QObject::tr("plan (analytic)"), kPlan, {}, {}, std::nullopt};
  BarSetData counted{QObject::tr("counted (peak of each)"), kMeasured, {}, {}, std::nullopt};
  double most = 0;
  for (const PlanRow& r : rows) most = std::max({most, r.plan_bytes, r.measured_bytes});
  const ByteUnit unit = byteUnitFor(most);
  for (const PlanRow& r : rows) {
    categories << toQString(r.what);
    plan.values << r.plan_bytes / unit.bytes;
    counted.values << r.measured_bytes / unit.bytes;
    const QString tip = QObject::tr("<b>%1</b><br>plan %2 (%L3 bytes)<br>counted %4 (%L5 bytes)<br>error %6")
                            .arg(toQString(r.what), bytesText(static_cast<qint64>(r.plan_bytes)))
                            .arg(static_cast<qint64>(r.plan_bytes))
                            .arg(bytesText(static_cast<qint64>(r.measured_bytes)))
                            .arg(static_cast<qint64>(r.measured_bytes))
                            .arg(signedPercent(r.error()));
    plan.tooltips << tip;
    counted.tooltips << tip;
    annotations << signedPercent(r.error());
  }
  chart.setData(QObject::tr("Plan vs count: 4P parameters + 4P gradients + optimizer state + activations"),
                QObject::tr("bytes (%1)").arg(toQString(unit.name)), categories, {plan, counted}, annotations);
  return true;
}

bool showPrecisionTiming(BarChart& chart, const std::vector<PrecisionRow>& rows) {
  if (rows.empty()) return false;
  QStringList categories, annotations;
  BarSetData median{QObject::tr("median step time"), kTime, {}, {}, QList<QPair<qreal, qreal>>{}};
  for (const PrecisionRow& r : rows) {
    QString category = toQString(r.mode);
    if (r.tflops) category += QStringLiteral(" (%1)").arg(toQString(flopRateText(*r.tflops * 1e12)));
    categories << category;
    median.values << r.time.median_ms;
    median.whiskers->append({r.time.min_ms, r.time.max_ms});
    QString tip = QObject::tr("<b>%1</b><br>median %2 ms, min %3, max %4 (%5 steps, spread ±%6 %)<br>%7")
                      .arg(toQString(r.mode))
                      .arg(r.time.median_ms, 0, 'f', 3)
                      .arg(r.time.min_ms, 0, 'f', 3)
                      .arg(r.time.max_ms, 0, 'f', 3)
                      .arg(r.time.samples)
                      .arg(r.time.spread() * 100, 0, 'f', 0)
                      .arg(toQString(r.settings).toHtmlEscaped());
    if (!r.caveat.empty()) tip += QStringLiteral("<br><i>%1</i>").arg(toQString(r.caveat).toHtmlEscaped());
    if (r.peak_allocated) tip += QObject::tr("<br>peak allocated %1").arg(bytesText(static_cast<qint64>(*r.peak_allocated)));
    median.tooltips << tip;
    QStringList speedups;
    // "1.7× faster than fp32" only where it stands out of the spread: "within noise of fp32" otherwise.
    auto against = [](const TimingChange& c, const QString& reference) {
      if (!c.meaningful()) return QObject::tr("%1 of %2").arg(toQString(speedupVerdictText(c)), reference);
      const QString text = toQString(speedupText(c.speedup));
      return text == QLatin1String("as fast") ? QObject::tr("as fast as %1").arg(reference)
                                              : QObject::tr("%1 than %2").arg(text, reference);
    };
    if (!r.caveat.empty()) speedups << QObject::tr("no TF32 on a CPU:\nthe fp32 arithmetic");
    else if (r.vs_fp32 && r.mode != "fp32") speedups << against(*r.vs_fp32, QStringLiteral("fp32"));
    if (r.caveat.empty() && r.vs_tf32 && r.mode != "tf32" && r.mode != "fp32") speedups << against(*r.vs_tf32, QStringLiteral("TF32"));
    // One comparison a line: two on one line run into the next bar's label.
    annotations << (speedups.isEmpty() ? (r.mode == "fp32" ? QObject::tr("baseline (TF32 off)") : QString())
                                       : speedups.join(QLatin1Char('\n')));
  }
  chart.setData(QObject::tr("Step time per precision mode (median, min–max)"), QObject::tr("ms per step"), categories,
                {median}, annotations);
  return true;
}

}  // namespace sawtooth::views
