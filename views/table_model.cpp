#include "views/table_model.h"

#include <QColor>

#include "views/qt_format.h"
#include "views/timeline_style.h"
#include "views/views_logging.h"

namespace sawtooth::views {

TableModel::TableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TableModel::setTable(std::shared_ptr<const Table> table) {
  beginResetModel();
  table_ = std::move(table);
  endResetModel();
  qCDebug(lcTables) << "table of" << rowCount() << "rows";
}

int TableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !table_ ? 0 : static_cast<int>(table_->rowCount());
}

int TableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || !table_ ? 0 : static_cast<int>(table_->columnCount());
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (!table_ || orientation != Qt::Horizontal || section < 0 || static_cast<size_t>(section) >= table_->columnCount())
    return {};
  const TableColumn& c = table_->columns[static_cast<size_t>(section)];
  if (role == Qt::DisplayRole) return toQString(c.name);
  if (role == Qt::ToolTipRole) return toQString(csvHeader(c));
  return {};
}

QVariant TableModel::data(const QModelIndex& index, int role) const {
  if (!table_ || !index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const TableColumn& column = table_->columns[static_cast<size_t>(index.column())];
  const auto& row = table_->rows[static_cast<size_t>(index.row())];
  if (static_cast<size_t>(index.column()) >= row.size()) return {};
  const Cell& cell = row[static_cast<size_t>(index.column())];
  switch (role) {
    case Qt::DisplayRole: {
      QString text = toQString(displayText(cell, column.unit));
      if (cell.number() && !column.unit_label.empty()) text += QLatin1Char(' ') + toQString(column.unit_label);
      return text;
    }
    case RawRole:
      if (const double* n = cell.number()) return *n;
      if (const std::string* t = cell.text()) return toQString(*t);
      return {};
    case Qt::ForegroundRole: {
      // Growth in red, shrinkage in green, as the diff's bar chart draws them.
      const double* n = cell.number();
      if (!column.is_change || !n || *n == 0) return {};
      return *n > 0 ? growthColor() : shrinkColor();
    }
    case Qt::TextAlignmentRole:
      return cell.number() ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      if (cell.number()) {
        const std::string unit = column.unit_label.empty() ? std::string(unitName(column.unit)) : column.unit_label;
        return toQString(csvValue(cell, column.unit) + (unit.empty() ? "" : " " + unit));
      }
      return {};
    default: return {};
  }
}

}  // namespace sawtooth::views
