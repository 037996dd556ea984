#include "views/oom_view.h"

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "views/qt_format.h"

namespace sawtooth::views {

OomView::OomView(QWidget* parent)
    : QWidget(parent), headline_(new QLabel(this)), timeline_(new TimelineChart(this)), model_(new TableModel(this)),
      blocks_(new QTableView(this)) {
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  blocks_->setModel(model_);
  blocks_->horizontalHeader()->setStretchLastSection(true);
  blocks_->verticalHeader()->hide();
  blocks_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(timeline_);
  split->addWidget(blocks_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({520, 300});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(headline_);
  layout->addWidget(split, 1);
}

bool OomView::setReport(const TraceReport& report, std::shared_ptr<const TimelineOverview> overview) {
  if (!report.oom) return false;
  const OomReport& r = *report.oom;
  // A file read on demand draws from its summaries, as the tab's timeline does.
  const bool drawn = report.analysis || overview;
  timeline_->setVisible(drawn);
  if (report.analysis) timeline_->setAnalysis(report.analysis);
  else if (overview) timeline_->setOverview(std::move(overview));
  if (drawn) timeline_->setVisibleDevices({r.device});
  QString text = tr("<b>Out of memory on %1</b> at %2 (after allocation event %3): asked for <b>%4</b>")
                     .arg(toQString(r.device_name).toHtmlEscaped(), durationText(r.t_ns))
                     .arg(r.index)
                     .arg(bytesText(r.requested));
  if (r.device_free) text += tr(" with %1 free on the device").arg(bytesText(*r.device_free));
  text += tr(". Allocated at that moment: <b>%1</b> in %L2 live blocks").arg(bytesText(r.allocated)).arg(r.live_blocks);
  if (r.allocated > r.itemised)
    text += tr(" (%1 of it allocated before the trace began, not itemised)").arg(bytesText(r.allocated - r.itemised));
  if (r.reported_free && r.reported_total)
    text += tr("; the allocator reported %1 free of %2").arg(bytesText(*r.reported_free), bytesText(*r.reported_total));
  text += tr(". The largest blocks alive then:");
  if (!report.analysis)
    text += tr("<br>Read from the file on demand: the Allocator view opens at allocator event %1 of %2, the failure, "
               "and explains it (the free blocks, and the blocks in use that stand in the way).")
                .arg(r.index)
                .arg(toQString(r.device_name).toHtmlEscaped());
  headline_->setText(text);
  model_->setTable(std::make_shared<const Table>(r.blocks));
  blocks_->resizeColumnsToContents();
  if (!drawn) return true;

  // The timeline up to just after the failure.
  const double x = report.analysis ? timeline_->xOfEvent(r.event)
                                   : (timeline_->xAxisByTime() ? static_cast<double>(r.t_ns) : static_cast<double>(r.index));
  const double lo = timeline_->window().boundsLo();
  timeline_->zoomTo(lo, x + std::max(1.0, (x - lo) * 0.02));
  return true;
}

}  // namespace sawtooth::views
