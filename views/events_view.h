#pragma once
// The events table with its filter box and a count of what is shown. The filter and the sort are
// asked for (queryChanged) and the rows they select arrive later (setRows): the table never
// filters or sorts millions of rows on the GUI thread. Syntax: core/analysis/event_query.h.

#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QWidget>

#include "views/events_table_model.h"
#include "views/events_table_view.h"

namespace sawtooth::views {

class EventsView : public QWidget {
  Q_OBJECT
 public:
  explicit EventsView(QWidget* parent = nullptr);
  void setTrace(std::shared_ptr<const Trace> trace);
  void setRows(const EventRows& rows, const std::shared_ptr<const Trace>& of);
  // A file too large to read whole (EventsTableModel::setPagedRows): its tables, and a query's rows;
  // the rows' events come by pages (pageWanted, setPage).
  void setPagedRows(std::shared_ptr<const Trace> tables, const EventPageRows& rows);
  void setPage(const EventPage& page, const EventQuery& of) { model_->setPage(page, of); }
  // A query could not run (a cancelled or failed job): the count says so.
  void setQueryFailed(const QString& message);
  const EventQuery& query() const { return query_; }
  bool waitingForRows() const { return waiting_; }

  EventsTableModel* model() const { return model_; }
  EventsTableView* table() const { return table_; }
  QLineEdit* filterEdit() const { return filter_; }
  QString countText() const { return count_->text(); }
  void selectEvent(qint64 event);

 signals:
  void eventActivated(qint64 event);
  // The rows for this filter and sort are wanted (the filter parses).
  void queryChanged(sawtooth::EventQuery query);
  // Rows [first_row, first_row + EventsTableModel::kPageRows) of the paged rows are wanted.
  void pageWanted(sawtooth::EventQuery query, quint64 first_row);

 private:
  void requestQuery();
  void updateCount();

  EventsTableModel* model_;
  QLineEdit* filter_;
  QLabel* count_;
  EventsTableView* table_;
  QTimer typing_;  // a query per pause in typing, not per key
  EventQuery query_;
  EventQuery shown_;  // the query whose rows are shown
  bool waiting_ = false;
};

}  // namespace sawtooth::views
