#include "views/site_table_model.h"

#include <QLocale>

#include "views/qt_format.h"

namespace sawtooth::views {

SiteTableModel::SiteTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SiteTableModel::setRows(std::vector<SiteRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  total_ = 0;
  for (const SiteRow& r : rows_) total_ += r.bytes;
  endResetModel();
}

int SiteTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }
int SiteTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant SiteTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumns) return {};
  const SiteRow& r = rows_[static_cast<size_t>(index.row())];
  const double share = total_ > 0 ? 100.0 * static_cast<double>(r.bytes) / static_cast<double>(total_) : 0;
  const bool numeric = index.column() == Bytes || index.column() == Share || index.column() == Allocations || index.column() == Line;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case Site: return toQString(r.site);
        case CategoryColumn: return toQString(name(r.category)).replace('_', ' ');
        case Bytes: return bytesText(r.bytes);
        case Share: return QStringLiteral("%1 %").arg(share, 0, 'f', 1);
        case Allocations: return QLocale().toString(static_cast<qint64>(r.count));
        case File: return toQString(r.file);
        case Line: return r.line > 0 ? QVariant(static_cast<qlonglong>(r.line)) : QVariant(QString());
        case Function: return toQString(r.function);
      }
      return {};
    case SortRole:
      switch (index.column()) {
        case Bytes: return static_cast<qlonglong>(r.bytes);
        case Share: return share;
        case Allocations: return static_cast<qlonglong>(r.count);
        case Line: return static_cast<qlonglong>(r.line);
        default: return data(index, Qt::DisplayRole);
      }
    case Qt::ToolTipRole:
      if (index.column() == Bytes) return tr("%L1 bytes").arg(r.bytes);
      if (index.column() == Site) return toQString(r.site);
      return {};
    case Qt::TextAlignmentRole:
      return numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
  }
}

QVariant SiteTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= kColumns) return {};
  static const char* names[kColumns] = {"Call site", "Category", "Live bytes", "Share", "Allocations", "File", "Line", "Function"};
  return tr(names[section]);
}

}  // namespace sawtooth::views
