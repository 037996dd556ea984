#include "views/events_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QVBoxLayout>

namespace sawtooth::views {

EventsView::EventsView(QWidget* parent)
    : QWidget(parent), model_(new EventsTableModel(this)), filter_(new QLineEdit(this)), count_(new QLabel(this)),
      table_(new QTableView(this)) {
  filter_->setPlaceholderText(tr("Filter: words (alloc, forward, linear.py), size>=1MB, device:cuda:0"));
  filter_->setClearButtonEnabled(true);
  auto* top = new QHBoxLayout;
  top->addWidget(filter_, 1);
  top->addWidget(count_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(table_, 1);

  table_->setModel(model_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(EventsTableModel::Index, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  table_->setAlternatingRowColors(true);

  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    const bool ok = model_->setFilter(text);
    filter_->setToolTip(ok ? QString() : model_->filterError());
    filter_->setStyleSheet(ok ? QString() : QStringLiteral("QLineEdit { color: #c0392b; }"));
    updateCount();
  });
  connect(table_, &QTableView::activated, this,
          [this](const QModelIndex& index) { emit eventActivated(model_->eventAt(index.row())); });
  connect(model_, &QAbstractItemModel::modelReset, this, [this] { updateCount(); });
}

void EventsView::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  model_->setAnalysis(std::move(analysis));
  table_->resizeColumnsToContents();
  updateCount();
}

void EventsView::updateCount() {
  const qint64 total = model_->totalEvents();
  const int shown = model_->rowCount();
  count_->setText(shown == total ? tr("%L1 events").arg(total) : tr("%L1 of %L2 events").arg(shown).arg(total));
}

void EventsView::selectEvent(qint64 event) {
  const int row = model_->rowOfEvent(event);
  if (row < 0) return;
  const QModelIndex index = model_->index(row, 0);
  table_->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

}  // namespace sawtooth::views
