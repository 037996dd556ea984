#include "views/live_bytes_view.h"

#include <QHeaderView>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "views/qt_format.h"

namespace sawtooth::views {
namespace {
constexpr int kSiteColumn = 0;  // liveSitesTable's columns
constexpr int kBytesColumn = 2;
}  // namespace

LiveBytesView::LiveBytesView(QWidget* parent)
    : QWidget(parent),
      headline_(new QLabel(this)),
      flame_(new FlameGraphWidget),
      model_(new TableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)) {
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(TableModel::RawRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(kBytesColumn, Qt::DescendingOrder);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(flame_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(scroll);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(headline_);
  layout->addWidget(split, 1);
}

void LiveBytesView::setLiveBytes(std::shared_ptr<const LiveBytes> live) {
  live_ = std::move(live);
  if (!live_) {
    setMessage({});
    return;
  }
  headline_->setText(toQString(live_->headline) + tr(" — click a frame to zoom in, double-click to zoom out"));
  flame_->setGraph(std::shared_ptr<const FlameGraph>(live_, &live_->flame));
  model_->setTable(tableData());
  table_->resizeColumnsToContents();
  table_->setColumnWidth(kSiteColumn, std::min(table_->columnWidth(kSiteColumn), 480));
}

void LiveBytesView::setMessage(const QString& text) {
  live_.reset();
  headline_->setText(text);
  flame_->setGraph(nullptr);
  model_->setTable(nullptr);
}

std::shared_ptr<const Table> LiveBytesView::tableData() const {
  return live_ ? std::shared_ptr<const Table>(live_, &live_->table) : nullptr;
}

PaintedWidget LiveBytesView::picture() const { return {flame_, flame_->size()}; }


}  // namespace sawtooth::views
