#pragma once
// A trace diff's rows (core's DiffRow, by call site and category) as a table: site, category,
// live bytes at each side's peak, their change, bytes allocated over each side, allocations alive
// at each peak. Sizes shown as a person reads them, sorted by raw value (SortRole).

#include <QAbstractTableModel>
#include <memory>

#include "core/analysis/trace_diff.h"

namespace sawtooth::views {

class DiffRowsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Site, CategoryColumn, ABytes, BBytes, Change, ATotal, BTotal, ACount, BCount, kColumns };
  static constexpr int SortRole = Qt::UserRole;

  explicit DiffRowsModel(QObject* parent = nullptr);
  void setDiff(std::shared_ptr<const TraceDiff> diff);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const TraceDiff> diff_;
};

}  // namespace sawtooth::views
