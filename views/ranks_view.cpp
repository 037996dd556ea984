#include "views/ranks_view.h"

#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/analysis/axis_scale.h"
#include "views/qt_format.h"
#include "views/timeline_style.h"

namespace sawtooth::views {

RanksView::RanksView(QWidget* parent)
    : QWidget(parent), peaks_(new BarChart(this)), imbalance_(new QLabel(this)), lanes_note_(new QLabel(this)),
      lane_host_(new QWidget(this)) {
  imbalance_->setWordWrap(true);
  imbalance_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* lanes_page = new QWidget(this);
  auto* lanes_layout = new QVBoxLayout(lanes_page);
  lanes_layout->setContentsMargins(0, 0, 0, 0);
  lanes_layout->addWidget(lanes_note_);
  auto* scroll = new QScrollArea(lanes_page);
  scroll->setWidget(lane_host_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  lanes_layout->addWidget(scroll, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(peaks_);
  split->addWidget(lanes_page);
  split->setSizes({340, 460});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(imbalance_);
  layout->addWidget(split, 1);
  auto* host_layout = new QVBoxLayout(lane_host_);
  host_layout->setContentsMargins(0, 0, 0, 0);
}

void RanksView::setComparison(const RankComparison& ranks) {
  QStringList categories, annotations;
  BarSetData peaks{tr("peak allocated"), QColor(0x1f, 0x77, 0xb4), {}, {}, std::nullopt};
  double most = std::max(ranks.replicated_bytes, ranks.sharded_bytes);
  for (const RankPeak& r : ranks.ranks) most = std::max(most, static_cast<double>(r.peak_allocated));
  const ByteUnit unit = byteUnitFor(most);
  for (const RankPeak& r : ranks.ranks) {
    const QString where = toQString(deviceLabel(r.device));
    categories << tr("rank %1 (%2)").arg(r.rank).arg(where);
    peaks.values << static_cast<double>(r.peak_allocated) / unit.bytes;
    peaks.tooltips << tr("<b>rank %1</b> on %2<br>peak allocated %3 (%L4 bytes)<br>optimizer state planned: %5")
                          .arg(r.rank)
                          .arg(where, bytesText(r.peak_allocated))
                          .arg(r.peak_allocated)
                          .arg(bytesText(static_cast<qint64>(r.planned_optimizer_state)));
    annotations << (r.relative_to_lowest > 0 ? QStringLiteral("%1×").arg(r.relative_to_lowest, 0, 'f', 3) : QString());
  }
  imbalance_ratio_ = ranks.imbalance;
  const QString variant = toQString(ranks.variant);
  peaks_->setData(tr("Peak memory per rank (%1, %2 ranks)").arg(variant).arg(ranks.world_size), tr("peak (%1)").arg(toQString(unit.name)),
                  categories,
                  {peaks}, annotations);
  if (ranks.parameter_bytes > 0) {
    peaks_->addReferenceLine(tr("16P: parameters, gradients and all of Adam's state = %1")
                                 .arg(bytesText(static_cast<qint64>(ranks.replicated_bytes))),
                             ranks.replicated_bytes / unit.bytes, QColor(0x55, 0x55, 0x55));
    peaks_->addReferenceLine(tr("sharded: 4P + 4P + 8P/%1 = %2")
                                 .arg(ranks.world_size)
                                 .arg(bytesText(static_cast<qint64>(ranks.sharded_bytes))),
                             ranks.sharded_bytes / unit.bytes, QColor(0xda, 0xa5, 0x20));
  }
  imbalance_->setText(tr("<b>%1 ranks</b> (%2): peak per rank %3 to %4 — imbalance <b>%5×</b> (largest over smallest peak).")
                          .arg(ranks.world_size)
                          .arg(variant.isEmpty() ? tr("data parallel") : variant)
                          .arg(bytesText(ranks.lowest), bytesText(ranks.highest))
                          .arg(imbalance_ratio_, 0, 'f', 3));
  for (TimelineChart* lane : lanes_) lane->deleteLater();
  lanes_.clear();
  lanes_note_->setText(tr("Analysing each rank's timeline…"));
  lanes_note_->show();
}

void RanksView::setLanes(const std::vector<RankLane>& lanes) {
  for (TimelineChart* lane : lanes_) lane->deleteLater();
  lanes_.clear();
  // One lane per rank, on the ranks' shared clock, zoomed together.
  const QPen allocated = seriesPen(SeriesKind::Allocated, 0), reserved = seriesPen(SeriesKind::Reserved, 0);
  lanes_note_->setText(tr("One lane per rank on the ranks' shared clock, zoomed together: <span style=\"color:%1\">"
                          "━ allocated</span> &nbsp; <span style=\"color:%2\">┅ reserved</span>")
                           .arg(allocated.color().name(), reserved.color().name()));
  for (const RankLane& l : lanes) {
    auto* lane = new TimelineChart(lane_host_);
    lane->setMinimumHeight(190);
    lane->setCompact(true);
    lane->setTitle(tr("rank %1").arg(l.rank));
    lane->setXAxisByTime(true);
    lane->setPhaseLegendVisible(false);
    lane->setAnalysis(l.analysis);
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
}

}  // namespace sawtooth::views
