#include "views/oom_view.h"

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/analysis/category_series.h"
#include "core/analysis/frame_filter.h"
#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

constexpr int kMaxBlocks = 50;

QString framesText(const Trace& t, uint32_t stack) {
  if (stack == kNoStack) return {};
  QStringList parts;
  for (uint32_t f : interestingFrames(t.stacks, stack, 3)) {
    const FrameView fr = t.stacks.frame(f);
    QString where = toQString(fr.file).section('/', -1);
    if (fr.line > 0) where += QStringLiteral(":%1").arg(fr.line);
    parts << QStringLiteral("%1 (%2)").arg(toQString(fr.name).left(60), where);
  }
  return parts.join(QStringLiteral(" ← "));
}

}  // namespace

OomView::OomView(QWidget* parent)
    : QWidget(parent), headline_(new QLabel(this)), timeline_(new TimelineChart(this)), blocks_(new QTableWidget(this)) {
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  blocks_->setColumnCount(6);
  blocks_->setHorizontalHeaderLabels({tr("Size"), tr("Category"), tr("Phase"), tr("Allocated at"), tr("Address"), tr("Frames")});
  blocks_->horizontalHeader()->setStretchLastSection(true);
  blocks_->verticalHeader()->hide();
  blocks_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  blocks_->setSortingEnabled(false);
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

bool OomView::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  const Trace& t = analysis->trace();
  const DeviceAnalysis* device = nullptr;
  for (const auto& d : analysis->devices())
    if (!d->oom_events.empty() && (!device || d->oom_events.front() < device->oom_events.front())) device = d.get();
  if (!device) return false;
  const uint64_t oom = device->oom_events.front();
  const Event e = t.events.at(oom);

  const auto live = liveBlocksAt(t, device->device, oom);
  int64_t itemised = 0;
  for (const auto& b : live) itemised += b.size;
  const Series& a = device->series.allocated;
  auto it = std::upper_bound(a.event.begin(), a.event.end(), oom);
  const int64_t allocated = it == a.event.begin() ? a.start : a.value[static_cast<size_t>(it - a.event.begin()) - 1];

  timeline_->setAnalysis(analysis);
  timeline_->setVisibleDevices({device->device});
  QString text = tr("<b>Out of memory on %1</b> at %2 (after allocation event %3): asked for <b>%4</b>")
                     .arg(toQString(t.deviceName(e.device)).toHtmlEscaped(), durationText(e.t_ns))
                     .arg(static_cast<qint64>(timeline_->xOfEvent(oom)))
                     .arg(bytesText(e.size));
  if (e.source == Source::Allocator && e.addr > 0) text += tr(" with %1 free on the device").arg(bytesText(static_cast<qint64>(e.addr)));
  text += tr(". Allocated at that moment: <b>%1</b> in %L2 live blocks").arg(bytesText(allocated)).arg(live.size());
  if (allocated > itemised)
    text += tr(" (%1 of it allocated before the trace began, not itemised)").arg(bytesText(allocated - itemised));
  if (auto meta = t.meta.find("oom.device_free_bytes"); meta != t.meta.end())
    text += tr("; the allocator reported %1 free of %2")
                .arg(bytesText(std::stoll(meta->second)), bytesText(std::stoll(t.meta.at("oom.device_total_bytes"))));
  text += tr(". The largest blocks alive then:");
  headline_->setText(text);

  const double x = timeline_->xOfEvent(oom);
  timeline_->zoomTo(timeline_->window().boundsLo(), x + std::max(1.0, (x - timeline_->window().boundsLo()) * 0.02));

  const int rows = static_cast<int>(std::min<size_t>(live.size(), kMaxBlocks));
  blocks_->setRowCount(rows);
  for (int r = 0; r < rows; ++r) {
    const LiveBlock& b = live[static_cast<size_t>(r)];
    auto* size = new QTableWidgetItem(bytesText(b.size));
    size->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    size->setToolTip(tr("%L1 bytes").arg(b.size));
    blocks_->setItem(r, 0, size);
    blocks_->setItem(r, 1, new QTableWidgetItem(toQString(name(b.category)).replace('_', ' ')));
    blocks_->setItem(r, 2, new QTableWidgetItem(b.phase < t.phases.size() ? toQString(t.phases[b.phase].name) : QString()));
    blocks_->setItem(r, 3, new QTableWidgetItem(durationText(t.events.tNs()[b.alloc_event])));
    blocks_->setItem(r, 4, new QTableWidgetItem(addressText(b.addr)));
    blocks_->setItem(r, 5, new QTableWidgetItem(framesText(t, b.stack)));
  }
  blocks_->resizeColumnsToContents();
  return true;
}

}  // namespace sawtooth::views
