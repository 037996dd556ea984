#include "views/events_view.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "views/qt_format.h"

namespace sawtooth::views {

EventsView::EventsView(QWidget* parent)
    : QWidget(parent), model_(new EventsTableModel(this)), filter_(new QLineEdit(this)), count_(new QLabel(this)),
      table_(new EventsTableView(this)) {
  filter_->setPlaceholderText(
      tr("Filter: alloc · phase:forward · frame:*linear* · size>=1MB · device:cuda:0  (words match whole fields; * any text)"));
  filter_->setToolTip(tr("Words match a whole action, source, category, device, phase, run, or a frame's function or "
                         "file name; FIELD:VALUE picks the field (action, source, category, device, phase, run, frame); "
                         "* and ? match any text and any one character; size>=1MB, size<4096 compare sizes."));
  filter_->setClearButtonEnabled(true);
  auto* top = new QHBoxLayout;
  top->addWidget(filter_, 1);
  top->addWidget(count_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(table_, 1);

  table_->setModel(model_);
  table_->sortByColumn(EventsTableModel::Index, Qt::AscendingOrder);

  typing_.setSingleShot(true);
  typing_.setInterval(150);
  connect(&typing_, &QTimer::timeout, this, &EventsView::requestQuery);
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    // Parsing is cheap: say at once what is wrong; the rows follow when typing pauses.
    const QByteArray utf8 = text.toUtf8();
    const auto parsed = parseEventFilter(std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())));
    filter_->setStyleSheet(parsed ? QString() : QStringLiteral("QLineEdit { color: #c0392b; }"));
    if (!parsed) {
      count_->setText(toQString(parsed.error().message));
      typing_.stop();
      return;
    }
    query_.filter = utf8.toStdString();
    typing_.start();
  });
  connect(model_, &EventsTableModel::sortRequested, this, [this](EventColumn column, bool descending) {
    // The view re-applies its sort when the model resets (new rows): nothing new to ask for then.
    if (query_.sort == column && query_.descending == descending) return;
    query_.sort = column;
    query_.descending = descending;
    requestQuery();
  });
  connect(table_, &EventsTableView::activated, this, [this](int row) { emit eventActivated(model_->eventAt(row)); });
  connect(model_, &EventsTableModel::pageWanted, this, [this](quint64 first_row) {
    if (const auto& rows = model_->pagedRows()) emit pageWanted(rows->query, first_row);
  });
}

void EventsView::setPagedRows(std::shared_ptr<const Trace> tables, const EventPageRows& rows) {
  const bool first = !model_->paged();
  waiting_ = false;
  shown_ = rows.query;
  model_->setPagedRows(std::move(tables), rows);
  if (first) table_->resizeColumnsToContents();
  updateCount();
}

void EventsView::setTrace(std::shared_ptr<const Trace> trace) {
  model_->setTrace(std::move(trace));
  table_->resizeColumnsToContents();
  if (!query_.filter.empty() || query_.sort != EventColumn::Index || query_.descending) requestQuery();
  updateCount();
}

void EventsView::requestQuery() {
  typing_.stop();
  if (!model_->trace()) return;
  waiting_ = true;
  updateCount();
  emit queryChanged(query_);
}

void EventsView::setRows(const EventRows& rows, const std::shared_ptr<const Trace>& of) {
  if (of != model_->trace()) return;
  waiting_ = false;
  shown_ = rows.query;
  model_->setRows(rows, of);
  updateCount();
}

void EventsView::setQueryFailed(const QString& message) {
  waiting_ = false;
  count_->setText(message);
  // A sort that could not be made: the header shows the order the rows are in.
  if (query_.sort != shown_.sort || query_.descending != shown_.descending) {
    query_.sort = shown_.sort;
    query_.descending = shown_.descending;
    const QSignalBlocker block(model_);
    table_->sortByColumn(static_cast<int>(shown_.sort), shown_.descending ? Qt::DescendingOrder : Qt::AscendingOrder);
  }
}

void EventsView::updateCount() {
  const qint64 total = model_->totalEvents();
  const qint64 shown = model_->shownRows();
  QString text = shown == total ? tr("%L1 events").arg(total) : tr("%L1 of %L2 events").arg(shown).arg(total);
  // A file read a page at a time, sorted by a column: only the first rows in that order are kept.
  if (const auto& paged = model_->pagedRows(); paged && paged->by_column && paged->matching > paged->size)
    text = tr("the first %L1 in this order of %L2 events%3 (a filter narrows them)")
               .arg(paged->size)
               .arg(paged->matching)
               .arg(paged->matching == static_cast<uint64_t>(total) ? QString() : tr(" that match, of %L1").arg(total));
  if (waiting_) text += tr(" · updating…");
  count_->setText(text);
}

void EventsView::selectEvent(qint64 event) {
  const int row = model_->rowOfEvent(event);
  if (row < 0) return;
  table_->setCurrentRow(row);
  table_->scrollToRow(row);
}

}  // namespace sawtooth::views
