#pragma once
// The events of a trace as a table. Millions of rows stay cheap: cells are read from the columnar
// store on demand, and sorting and filtering work on an index permutation over the store's
// columns rather than through QSortFilterProxyModel.
//
// Filter syntax: words match the action, category, phase, run, device or top frame (all words
// must match, case-insensitive); `size>=1MB`, `size<4096` compare sizes (B, kB, MB, GB, KiB, MiB,
// GiB); `device:cuda:0` selects a device.

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "core/analysis/trace_analysis.h"

namespace sawtooth::views {

class EventsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Index, Time, Device, Source, Action, Size, Address, Stream, Category, Phase, Run, TopFrame, ColumnCount };
  static constexpr int EventRole = Qt::UserRole + 1;  // the row's global event index (qint64)

  explicit EventsTableModel(QObject* parent = nullptr);

  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  // Returns false (and keeps the previous filter) when the text does not parse; see error().
  bool setFilter(const QString& text);
  const QString& filterError() const { return filter_error_; }
  int rowOfEvent(qint64 event) const;  // -1 when filtered out
  qint64 eventAt(int row) const;
  qint64 totalEvents() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  void sort(int column, Qt::SortOrder order) override;

  // Parses "1.5MB", "4096", "2 GiB" into bytes; false when unreadable.
  static bool parseBytes(const QString& text, qint64& bytes);

 private:
  QString topFrame(size_t event) const;
  void rebuildRows();
  void sortRows(int column, Qt::SortOrder order);

  std::shared_ptr<const TraceAnalysis> analysis_;
  std::vector<uint64_t> rows_;  // event indices, filtered and sorted
  int sort_column_ = Index;
  Qt::SortOrder sort_order_ = Qt::AscendingOrder;
  QString filter_;
  QString filter_error_;
};

}  // namespace sawtooth::views
