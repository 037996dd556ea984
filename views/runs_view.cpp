#include "views/runs_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>

namespace sawtooth::views {

RunsView::RunsView(QWidget* parent) : QTableView(parent), model_(new TableModel(this)), proxy_(new QSortFilterProxyModel(this)) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(TableModel::RawRole);
  setModel(proxy_);
  setSortingEnabled(true);
  setSelectionBehavior(QAbstractItemView::SelectItems);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  verticalHeader()->hide();
  setAlternatingRowColors(true);
  horizontalHeader()->setStretchLastSection(true);
}

void RunsView::setTable(std::shared_ptr<const Table> table) {
  table_ = table;
  model_->setTable(std::move(table));
  sortByColumn(-1, Qt::AscendingOrder);  // the recording's own order until a column is clicked
  resizeColumnsToContents();
}

QString RunsView::selectionAsText() const {
  const QModelIndexList selected = selectionModel() ? selectionModel()->selectedIndexes() : QModelIndexList();
  if (selected.isEmpty()) return {};
  int r0 = INT32_MAX, r1 = -1, c0 = INT32_MAX, c1 = -1;
  for (const QModelIndex& i : selected) r0 = std::min(r0, i.row()), r1 = std::max(r1, i.row()), c0 = std::min(c0, i.column()), c1 = std::max(c1, i.column());
  QStringList lines;
  QStringList header;
  for (int c = c0; c <= c1; ++c) header << model()->headerData(c, Qt::Horizontal).toString();
  lines << header.join('\t');
  for (int r = r0; r <= r1; ++r) {
    QStringList cells;
    for (int c = c0; c <= c1; ++c) cells << model()->index(r, c).data().toString();
    lines << cells.join('\t');
  }
  return lines.join('\n');
}

void RunsView::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    QApplication::clipboard()->setText(selectionAsText());
    return;
  }
  QTableView::keyPressEvent(event);
}

}  // namespace sawtooth::views
