#include "views/events_table_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace sawtooth::views {
namespace {

constexpr int kCellPadding = 4;
constexpr int kSampledRows = 200;  // rows measured to fit a column to its contents

}  // namespace

EventsTableView::EventsTableView(QWidget* parent) : QAbstractScrollArea(parent), header_(new QHeaderView(Qt::Horizontal, this)) {
  header_->setSectionsClickable(true);
  header_->setSortIndicatorShown(true);
  header_->setHighlightSections(false);
  header_->setStretchLastSection(true);
  header_->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  connect(header_, &QHeaderView::sortIndicatorChanged, this, [this](int column, Qt::SortOrder order) {
    if (model_) model_->sort(column, order);
  });
  connect(header_, &QHeaderView::sectionResized, this, [this] {
    updateGeometries();
    viewport()->update();
  });
  connect(header_, &QHeaderView::sectionMoved, viewport(), qOverload<>(&QWidget::update));
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setBackgroundRole(QPalette::Base);
  verticalScrollBar()->setSingleStep(1);
}

void EventsTableView::setModel(QAbstractItemModel* model) {
  if (model_) disconnect(model_, nullptr, this, nullptr);
  model_ = model;
  header_->setModel(model);
  auto refresh = [this] {
    if (current_ >= rows()) current_ = -1;
    updateGeometries();
    viewport()->update();
  };
  if (model_) {
    connect(model_, &QAbstractItemModel::modelReset, this, refresh);
    connect(model_, &QAbstractItemModel::layoutChanged, this, refresh);
    connect(model_, &QAbstractItemModel::rowsInserted, this, refresh);
    connect(model_, &QAbstractItemModel::rowsRemoved, this, refresh);
    connect(model_, &QAbstractItemModel::dataChanged, viewport(), qOverload<>(&QWidget::update));
  }
  refresh();
}

int EventsTableView::rows() const { return model_ ? model_->rowCount() : 0; }

int EventsTableView::rowHeight() const { return fontMetrics().height() + 4; }

int EventsTableView::visibleRows() const { return std::max(1, viewport()->height() / rowHeight()); }

int EventsTableView::firstVisibleRow() const { return verticalScrollBar()->value(); }

int EventsTableView::rowAt(int y) const {
  const int row = firstVisibleRow() + y / rowHeight();
  return y >= 0 && row < rows() ? row : -1;
}

void EventsTableView::updateGeometries() {
  const int header_height = header_->sizeHint().height();
  setViewportMargins(0, header_height, 0, 0);
  const QRect area = viewport()->geometry();
  header_->setGeometry(area.left(), area.top() - header_height, area.width(), header_height);
  verticalScrollBar()->setRange(0, std::max(0, rows() - visibleRows()));
  verticalScrollBar()->setPageStep(visibleRows());
  horizontalScrollBar()->setRange(0, std::max(0, header_->length() - viewport()->width()));
  horizontalScrollBar()->setPageStep(viewport()->width());
  header_->setOffset(horizontalScrollBar()->value());
}

void EventsTableView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateGeometries();
}

void EventsTableView::scrollContentsBy(int, int) {
  header_->setOffset(horizontalScrollBar()->value());
  viewport()->update();
}

void EventsTableView::sortByColumn(int column, Qt::SortOrder order) {
  if (header_->sortIndicatorSection() == column && header_->sortIndicatorOrder() == order && model_) {
    model_->sort(column, order);  // the indicator is already there: ask again
    return;
  }
  header_->setSortIndicator(column, order);  // sortIndicatorChanged asks the model
}

void EventsTableView::resizeColumnsToContents() {
  if (!model_) return;
  const QFontMetrics fm = fontMetrics();
  const int first = firstVisibleRow();
  const int last = std::min(rows(), first + kSampledRows);
  for (int c = 0; c < model_->columnCount(); ++c) {
    int width = header_->sectionSizeHint(c);
    for (int r = first; r < last; ++r)
      width = std::max(width, fm.horizontalAdvance(model_->index(r, c).data().toString()) + 2 * kCellPadding + 2);
    header_->resizeSection(c, std::min(width, 600));
  }
  updateGeometries();
}

void EventsTableView::setCurrentRow(int row) {
  if (row >= rows()) row = rows() - 1;
  if (row == current_) return;
  current_ = row;
  if (row >= 0) {
    if (row < firstVisibleRow()) verticalScrollBar()->setValue(row);
    else if (row >= firstVisibleRow() + visibleRows()) verticalScrollBar()->setValue(row - visibleRows() + 1);
  }
  viewport()->update();
  emit currentRowChanged(row);
}

void EventsTableView::scrollToRow(int row) { verticalScrollBar()->setValue(std::max(0, row - visibleRows() / 2)); }

void EventsTableView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  if (!model_) return;
  const int h = rowHeight();
  const int first = firstVisibleRow();
  const int last = std::min(rows(), first + visibleRows() + 1);
  const QPalette& pal = palette();
  const int offset = horizontalScrollBar()->value();
  for (int r = first; r < last; ++r) {
    const QRect row_rect(0, (r - first) * h, viewport()->width(), h);
    const bool selected = r == current_;
    p.fillRect(row_rect, selected ? pal.highlight() : (r % 2 ? pal.alternateBase() : pal.base()));
    p.setPen(selected ? pal.highlightedText().color() : pal.text().color());
    for (int v = 0; v < header_->count(); ++v) {
      const int c = header_->logicalIndex(v);
      if (header_->isSectionHidden(c)) continue;
      const int x = header_->sectionPosition(c) - offset;
      const int w = header_->sectionSize(c);
      if (x + w < 0 || x > viewport()->width()) continue;
      const QModelIndex index = model_->index(r, c);
      const QString text = index.data().toString();
      if (text.isEmpty()) continue;
      const QVariant align = index.data(Qt::TextAlignmentRole);
      const Qt::Alignment a = align.isValid() ? Qt::Alignment(align.toInt()) : (Qt::AlignLeft | Qt::AlignVCenter);
      const QRect cell(x + kCellPadding, row_rect.top(), w - 2 * kCellPadding, h);
      p.drawText(cell, static_cast<int>(a | Qt::AlignVCenter), p.fontMetrics().elidedText(text, Qt::ElideRight, cell.width()));
    }
  }
}

void EventsTableView::mousePressEvent(QMouseEvent* event) {
  const int row = rowAt(event->position().toPoint().y());
  if (row >= 0) setCurrentRow(row);
  setFocus();
}

void EventsTableView::mouseDoubleClickEvent(QMouseEvent* event) {
  const int row = rowAt(event->position().toPoint().y());
  if (row >= 0) emit activated(row);
}

void EventsTableView::keyPressEvent(QKeyEvent* event) {
  const int n = rows();
  if (n == 0) return QAbstractScrollArea::keyPressEvent(event);
  const int row = std::max(current_, 0);
  switch (event->key()) {
    case Qt::Key_Down: setCurrentRow(std::min(n - 1, current_ + 1)); break;
    case Qt::Key_Up: setCurrentRow(std::max(0, row - 1)); break;
    case Qt::Key_PageDown: setCurrentRow(std::min(n - 1, row + visibleRows())); break;
    case Qt::Key_PageUp: setCurrentRow(std::max(0, row - visibleRows())); break;
    case Qt::Key_Home: setCurrentRow(0); break;
    case Qt::Key_End: setCurrentRow(n - 1); break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      if (current_ >= 0) emit activated(current_);
      break;
    default: return QAbstractScrollArea::keyPressEvent(event);
  }
  event->accept();
}

bool EventsTableView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && model_) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int row = rowAt(help->pos().y());
    const int column = header_->logicalIndexAt(help->pos().x() + horizontalScrollBar()->value());
    const QString tip = row >= 0 && column >= 0 ? model_->index(row, column).data(Qt::ToolTipRole).toString() : QString();
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), tip, viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace sawtooth::views
