#include "views/segment_map_widget.h"

#include <QHelpEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

QColor kindColor(BlockKind kind) {
  switch (kind) {
    case BlockKind::Allocated: return {0x1f, 0x77, 0xb4};
    case BlockKind::PendingFree: return {0xff, 0x98, 0x00};
    case BlockKind::InactiveSplit: return {0xb0, 0xb0, 0xb0};
    case BlockKind::FreeSegment: return {0xe3, 0xe8, 0xee};
  }
  return Qt::gray;
}
const QColor kWaste(0xd6, 0x27, 0x28);

}  // namespace

SegmentMapWidget::SegmentMapWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void SegmentMapWidget::setMap(std::shared_ptr<const SegmentMap> map) {
  map_ = std::move(map);
  rows_.clear();
  if (map_) {
    for (size_t g = 0; g < map_->groups.size(); ++g) {
      rows_.push_back({static_cast<int>(g), -1});
      for (size_t s : map_->groups[g].segments) rows_.push_back({-1, static_cast<long>(s)});
    }
  }
  updateGeometry();
  adjustSize();
  update();
}

QSize SegmentMapWidget::sizeHint() const { return {900, kRowHeight * (rowCount() + 1)}; }

QRect SegmentMapWidget::barRect(int row) const {
  const int top = (row + 1) * kRowHeight;  // row 0 of the widget is the legend
  return {kLabelWidth, top + 2, std::max(20, width() - kLabelWidth - 8), kRowHeight - 4};
}

QRect SegmentMapWidget::blockRect(size_t segment, size_t block) const {
  if (!map_ || segment >= map_->state.segments.size()) return {};
  const SegmentView& s = map_->state.segments[segment];
  if (block >= s.blocks.size() || s.total_size <= 0) return {};
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (rows_[r].segment != static_cast<long>(segment)) continue;
    const QRect bar = barRect(static_cast<int>(r));
    const double scale = bar.width() / static_cast<double>(s.total_size);
    const BlockView& b = s.blocks[block];
    const int x0 = bar.left() + static_cast<int>(static_cast<double>(b.address - s.address) * scale);
    const int x1 = bar.left() + static_cast<int>(static_cast<double>(b.address - s.address + static_cast<uint64_t>(b.size)) * scale);
    return {x0, bar.top(), std::max(1, x1 - x0), bar.height()};
  }
  return {};
}

void SegmentMapWidget::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  const QPalette& pal = palette();
  p.setPen(pal.color(QPalette::Text));
  // Legend.
  {
    int x = 6;
    const int y = 3;
    auto key = [&](const QColor& c, const QString& text) {
      p.fillRect(QRect(x, y + 2, 12, kRowHeight - 8), c);
      x += 16;
      p.drawText(QRect(x, y, 400, kRowHeight - 4), Qt::AlignVCenter | Qt::AlignLeft, text);
      x += p.fontMetrics().horizontalAdvance(text) + 14;
    };
    key(kindColor(BlockKind::Allocated), tr("allocated"));
    key(kWaste, tr("rounding waste"));
    key(kindColor(BlockKind::PendingFree), tr("pending free"));
    key(kindColor(BlockKind::InactiveSplit), tr("inactive split"));
    key(kindColor(BlockKind::FreeSegment), tr("free segment"));
  }
  if (!map_) return;
  const int first = std::max(0, event->rect().top() / kRowHeight - 2);
  const int last = std::min(static_cast<int>(rows_.size()) - 1, event->rect().bottom() / kRowHeight);
  QFont bold = font();
  bold.setBold(true);
  for (int r = first; r <= last; ++r) {
    const Row& row = rows_[static_cast<size_t>(r)];
    const QRect bar = barRect(r);
    const QRect label(4, bar.top() - 2, kLabelWidth - 8, kRowHeight);
    if (row.group >= 0) {
      const SegmentGroup& g = map_->groups[static_cast<size_t>(row.group)];
      p.setFont(bold);
      p.setPen(pal.color(QPalette::Text));
      p.drawText(QRect(4, bar.top() - 2, width() - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 tr("%1 — %2, reserved %3, allocated %4, free %5, largest free block %6")
                     .arg(toQString(g.label))
                     .arg(g.segments.size() == 1 ? tr("1 segment") : tr("%L1 segments").arg(g.segments.size()))
                     .arg(bytesText(g.reserved), bytesText(g.allocated), bytesText(g.free_bytes), bytesText(g.largest_free_block)));
      p.setFont(font());
      continue;
    }
    const SegmentView& s = map_->state.segments[static_cast<size_t>(row.segment)];
    p.setPen(pal.color(QPalette::Text));
    p.drawText(label, Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1  %2%3").arg(addressText(s.address), bytesText(s.total_size), s.expandable ? tr(" exp") : QString()));
    if (s.total_size <= 0) continue;
    const double scale = bar.width() / static_cast<double>(s.total_size);
    for (const BlockView& b : s.blocks) {
      const double x0 = bar.left() + static_cast<double>(b.address - s.address) * scale;
      const double w = std::max(1.0, static_cast<double>(b.size) * scale);
      const BlockKind kind = blockKind(s, b);
      p.fillRect(QRectF(x0, bar.top(), w, bar.height()), kindColor(kind));
      if (kind == BlockKind::Allocated && b.size > b.requested_size && b.requested_size > 0) {
        const double ww = static_cast<double>(b.size - b.requested_size) * scale;
        if (ww >= 0.5) p.fillRect(QRectF(x0 + w - std::max(1.0, ww), bar.top(), std::max(1.0, ww), bar.height()), kWaste);
      }
      if (w >= 4) {
        p.setPen(pal.color(QPalette::Base));
        p.drawLine(QPointF(x0 + w, bar.top()), QPointF(x0 + w, bar.bottom()));
      }
    }
    p.setPen(pal.color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar.adjusted(0, 0, -1, -1));
  }
}

QString SegmentMapWidget::describeAt(QPoint pos) const {
  if (!map_) return {};
  const int r = pos.y() / kRowHeight - 1;
  if (r < 0 || r >= static_cast<int>(rows_.size())) return {};
  const Row& row = rows_[static_cast<size_t>(r)];
  if (row.segment < 0) return {};
  const SegmentView& s = map_->state.segments[static_cast<size_t>(row.segment)];
  QString text = tr("<b>Segment %1</b>: %2, %3, %4%5<br>allocated %6, free %7, largest free block %8")
                     .arg(addressText(s.address), bytesText(s.total_size), s.small_pool ? tr("small pool") : tr("large pool"),
                          toQString(streamLabel(s.stream)), s.expandable ? tr(", expandable") : QString(),
                          bytesText(s.allocatedBytes()), bytesText(s.freeBytes()), bytesText(s.largestFreeBlock()));
  const QRect bar = barRect(r);
  if (!bar.adjusted(0, -2, 0, 2).contains(pos) || s.total_size <= 0) return text;
  const double offset = (pos.x() - bar.left()) / static_cast<double>(bar.width()) * static_cast<double>(s.total_size);
  for (const BlockView& b : s.blocks) {
    if (offset < static_cast<double>(b.address - s.address) || offset >= static_cast<double>(b.address - s.address + static_cast<uint64_t>(b.size))) continue;
    text += tr("<hr><b>%1 block</b> at %2: %3").arg(toQString(name(blockKind(s, b))), addressText(b.address), bytesText(b.size));
    if (b.active()) {
      text += tr(" (requested %1, waste %2)").arg(bytesText(b.requested_size), bytesText(b.size - b.requested_size));
      text += tr("<br>%1").arg(toQString(name(b.category)).replace('_', ' '));
      if (auto it = map_->sites.find(b.stack); it != map_->sites.end()) text += tr(" · %1").arg(toQString(it->second).toHtmlEscaped());
      text += b.alloc_event == kBeforeTrace ? tr("<br>allocated before the trace began") : tr("<br>allocated at event %L1").arg(b.alloc_event);
      if (b.size_inferred) text += tr("<br>size inferred (at most %1)").arg(bytesText(b.size_max));
    }
    break;
  }
  return text;
}

bool SegmentMapWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = describeAt(help->pos());
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace sawtooth::views
