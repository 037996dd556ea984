#pragma once
// A core table (core/analysis/table.h) as a Qt model: each cell shown as a person reads it
// ("474.8 MB", "1.7× faster"), sorted by its raw value (Qt::UserRole), numbers aligned right, the
// exact value in the tooltip; a change column's growth in red and shrinkage in green. The precision, runs, out-of-memory and comparison tables are all
// this model with different tables.

#include <QAbstractTableModel>
#include <memory>

#include "core/analysis/table.h"

namespace sawtooth::views {

class TableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int RawRole = Qt::UserRole;  // the cell's number (double) or text, for sorting

  explicit TableModel(QObject* parent = nullptr);
  void setTable(std::shared_ptr<const Table> table);
  const std::shared_ptr<const Table>& table() const { return table_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const Table> table_;
};

}  // namespace sawtooth::views
