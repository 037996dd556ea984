#pragma once
// The events of a trace as a table. Millions of rows stay cheap: cells are read from the columnar
// store on demand, and the rows are an index permutation (core/analysis/event_query.h) that the
// app computes off the GUI thread and hands over with setRows(). Sorting asks for new rows
// (sortRequested); the view shows the old ones until they arrive.
// A file too large to read whole is shown a page at a time instead (setPagedRows): the rows'
// events arrive by pages the model asks for as they come into view (pageWanted, setPage), a few
// dozen pages kept; a row not read yet shows "…".

#include <QAbstractTableModel>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <vector>

#include "core/analysis/event_query.h"
#include "core/analysis/event_page.h"
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
  // `tables`: the file's devices, runs and stacks (no events or phases: a page names its rows'
  // phases); `rows`: a query's rows.
  void setPagedRows(std::shared_ptr<const Trace> tables, const EventPageRows& rows);
  // A page asked for by pageWanted (ignored when it belongs to another query).
  void setPage(const EventPage& page, const EventQuery& of);
  bool paged() const { return paged_.has_value(); }
  const std::optional<EventPageRows>& pagedRows() const { return paged_; }
  // The rows shown: the query's (rows() or pagedRows()).
  qint64 shownRows() const;
  static constexpr int kPageRows = 256;
  static constexpr size_t kKeptPages = 64;
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
  // Rows [first_row, first_row + kPageRows) of the paged query are wanted (once each until they come).
  void pageWanted(quint64 first_row);

 private:
  // The page holding `row` and the row's place in it, or null (asked for) when not read yet.
  const EventPage* pageOf(int row, size_t& at) const;
  QVariant cell(const Trace& t, const EventStore& ev, size_t i, qint64 index, int column, int role) const;

  std::shared_ptr<const Trace> trace_;
  EventRows rows_;
  mutable std::vector<QString> top_frames_;  // by stack, filled as rows are shown
  std::optional<EventPageRows> paged_;
  std::map<uint64_t, std::shared_ptr<const EventPage>> pages_;  // by first row
  std::vector<uint64_t> page_order_;                           // oldest first, for eviction
  mutable std::set<uint64_t> asked_;                            // pages asked for, not yet here
};

}  // namespace sawtooth::views
