#pragma once
// The events of a trace as a table. Millions of rows stay cheap: cells are read from the columnar
// store on demand, and the rows are an index permutation (core/analysis/event_query.h) that the
// app computes off the GUI thread and hands over with setRows(). Sorting asks for new rows
// (sortRequested); the view shows the old ones until they arrive.

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "core/analysis/event_query.h"
#include "core/model/trace.h"

namespace sawtooth::views {

class EventsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Index, Time, Device, Source, Action, Size, Address, Stream, Category, Phase, Run, TopFrame, ColumnCount };
  static constexpr int EventRole = Qt::UserRole + 1;  // the row's global event index (qint64)

  explicit EventsTableModel(QObject* parent = nullptr);

  // A new trace shows every event in order until rows arrive.
  void setTrace(std::shared_ptr<const Trace> trace);
  const std::shared_ptr<const Trace>& trace() const { return trace_; }
  // Rows computed for this trace (ignored when they belong to another).
  void setRows(const EventRows& rows, const std::shared_ptr<const Trace>& of);
  const EventRows& rows() const { return rows_; }
  int rowOfEvent(qint64 event) const;  // -1 when filtered out
  qint64 eventAt(int row) const;
  qint64 totalEvents() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  void sort(int column, Qt::SortOrder order) override;

 signals:
  void sortRequested(sawtooth::EventColumn column, bool descending);

 private:
  std::shared_ptr<const Trace> trace_;
  EventRows rows_;
  mutable std::vector<QString> top_frames_;  // by stack, filled as rows are shown
};

}  // namespace sawtooth::views
