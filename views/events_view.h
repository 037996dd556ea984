#pragma once
// The events table with its filter box and a count of what is shown.

#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QWidget>

#include "views/events_table_model.h"

namespace sawtooth::views {

class EventsView : public QWidget {
  Q_OBJECT
 public:
  explicit EventsView(QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  EventsTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QLineEdit* filterEdit() const { return filter_; }
  void selectEvent(qint64 event);

 signals:
  void eventActivated(qint64 event);

 private:
  void updateCount();
  EventsTableModel* model_;
  QLineEdit* filter_;
  QLabel* count_;
  QTableView* table_;
};

}  // namespace sawtooth::views
