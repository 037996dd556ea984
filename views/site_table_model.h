#pragma once
// Live bytes by call site and category (core's SiteRow) as a table: site, category, bytes,
// allocations, file, line, function. Sizes shown as a person reads them, sorted by their raw value
// (SortRole), the exact byte count in the tooltip.

#include <QAbstractTableModel>
#include <vector>

#include "core/analysis/flame_graph.h"

namespace sawtooth::views {

class SiteTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Site, CategoryColumn, Bytes, Share, Allocations, File, Line, Function, kColumns };
  static constexpr int SortRole = Qt::UserRole;

  explicit SiteTableModel(QObject* parent = nullptr);
  void setRows(std::vector<SiteRow> rows);
  const std::vector<SiteRow>& rows() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<SiteRow> rows_;
  int64_t total_ = 0;
};

}  // namespace sawtooth::views
