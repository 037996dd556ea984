#include "views/ranks_view.h"

#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "core/analysis/rank_split.h"
#include "core/analysis/run_peaks.h"
#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

double measurement(const Run& run, std::string_view name) {
  const Measurement* m = run.measurement(name);
  return m ? m->value : 0;
}

}  // namespace

RanksView::RanksView(QWidget* parent)
    : QWidget(parent), peaks_(new BarChart(this)), imbalance_(new QLabel(this)), lane_host_(new QWidget(this)) {
  imbalance_->setWordWrap(true);
  imbalance_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(peaks_);
  split->addWidget(lane_host_);
  split->setSizes({380, 420});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(imbalance_);
  layout->addWidget(split, 1);
  new QVBoxLayout(lane_host_);
  lane_host_->layout()->setContentsMargins(0, 0, 0, 0);
}

bool RanksView::setTrace(const Trace& trace) {
  const auto ranks = splitByRank(trace);
  if (ranks.empty()) return false;
  const auto per_run = runPeaks(trace);

  // Peaks per rank, on the device that rank trained on (its largest).
  QStringList categories, annotations;
  BarSetData peaks{tr("peak allocated"), QColor(0x1f, 0x77, 0xb4), {}, {}, std::nullopt};
  double lo = 0, hi = 0, param_bytes = 0;
  int world = static_cast<int>(ranks.size());
  for (const RankSlice& slice : ranks) {
    int64_t peak = 0;
    QString where;
    for (const auto& p : per_run)
      if (p.run == slice.run && p.peak_allocated > peak) {
        peak = p.peak_allocated;
        where = toQString(deviceLabel(p.device));
      }
    const Run& run = trace.runs[slice.run];
    param_bytes = std::max(param_bytes, measurement(run, "plan_parameter_bytes"));
    if (auto ws = run.configValue("world_size")) world = std::stoi(*ws);
    categories << tr("rank %1 (%2)").arg(slice.rank).arg(where);
    peaks.values << static_cast<double>(peak) / 1e6;
    peaks.tooltips << tr("<b>rank %1</b> on %2<br>peak allocated %3 (%L4 bytes)<br>optimizer state planned: %5")
                          .arg(slice.rank)
                          .arg(where, bytesText(peak))
                          .arg(peak)
                          .arg(bytesText(static_cast<qint64>(measurement(run, "plan_optimizer_state_bytes"))));
    const double p = static_cast<double>(peak);
    lo = categories.size() == 1 ? p : std::min(lo, p);
    hi = categories.size() == 1 ? p : std::max(hi, p);
  }
  imbalance_ratio_ = lo > 0 ? hi / lo : 0;
  for (qsizetype i = 0; i < categories.size(); ++i)
    annotations << (lo > 0 ? QStringLiteral("%1×").arg(peaks.values[i] * 1e6 / lo, 0, 'f', 3) : QString());
  const QString variant = trace.runs.empty() ? QString() : toQString(trace.runs.front().configValue("variant").value_or(""));
  peaks_->setData(tr("Peak memory per rank (%1, %2 ranks)").arg(variant).arg(world), tr("peak (MB)"), categories, {peaks},
                  annotations);
  if (param_bytes > 0) {
    peaks_->addReferenceLine(tr("16P: parameters, gradients and all of Adam's state = %1").arg(bytesText(static_cast<qint64>(4 * param_bytes))),
                             4 * param_bytes / 1e6, QColor(0x55, 0x55, 0x55));
    const double sharded = 2 * param_bytes + 2 * param_bytes / std::max(1, world);
    peaks_->addReferenceLine(tr("sharded: 4P + 4P + 8P/%1 = %2").arg(world).arg(bytesText(static_cast<qint64>(sharded))),
                             sharded / 1e6, QColor(0xda, 0xa5, 0x20));
  }
  imbalance_->setText(tr("<b>%1 ranks</b> (%2): peak per rank %3 to %4 — imbalance <b>%5×</b> (largest over smallest peak).")
                          .arg(world)
                          .arg(variant.isEmpty() ? tr("data parallel") : variant)
                          .arg(bytesText(static_cast<qint64>(lo)), bytesText(static_cast<qint64>(hi)))
                          .arg(imbalance_ratio_, 0, 'f', 3));

  // One lane per rank, on the ranks' shared clock, zoomed together.
  for (TimelineChart* lane : lanes_) lane->deleteLater();
  lanes_.clear();
  for (const RankSlice& slice : ranks) {
    auto* lane = new TimelineChart(lane_host_);
    lane->setMinimumHeight(160);
    lane->setTitle(tr("rank %1").arg(slice.rank));
    lane->setXAxisByTime(true);
    lane->setPhaseLegendVisible(false);
    lane->setAnalysis(std::make_shared<const TraceAnalysis>(slice.trace));
    lane_host_->layout()->addWidget(lane);
    lanes_.push_back(lane);
  }
  // The lanes share one x range so that the same moment lines up across ranks.
  double x0 = INFINITY, x1 = -INFINITY;
  for (TimelineChart* lane : lanes_) {
    x0 = std::min(x0, lane->window().boundsLo());
    x1 = std::max(x1, lane->window().boundsHi());
  }
  for (TimelineChart* lane : lanes_) {
    lane->setSharedBounds(x0, x1);
    connect(lane, &TimelineChart::windowChanged, this, [this, lane](double lo_x, double hi_x) {
      if (syncing_) return;
      syncing_ = true;
      for (TimelineChart* other : lanes_)
        if (other != lane) other->zoomTo(lo_x, hi_x);
      syncing_ = false;
    });
  }
  return true;
}

}  // namespace sawtooth::views
