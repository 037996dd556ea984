#include "views/diff_rows_model.h"

#include <QColor>

#include <QLocale>

#include "views/qt_format.h"

namespace sawtooth::views {

DiffRowsModel::DiffRowsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffRowsModel::setDiff(std::shared_ptr<const TraceDiff> diff) {
  beginResetModel();
  diff_ = std::move(diff);
  endResetModel();
}

int DiffRowsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !diff_ ? 0 : static_cast<int>(diff_->rows.size());
}
int DiffRowsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant DiffRowsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumns) return {};
  const DiffRow& r = diff_->rows[static_cast<size_t>(index.row())];
  auto raw = [&]() -> qlonglong {
    switch (index.column()) {
      case ABytes: return r.a_bytes;
      case BBytes: return r.b_bytes;
      case Change: return r.growth();
      case ATotal: return r.a_total_allocated;
      case BTotal: return r.b_total_allocated;
      case ACount: return r.a_count;
      case BCount: return r.b_count;
      default: return 0;
    }
  };
  const bool numeric = index.column() >= ABytes;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case Site: return toQString(r.site);
        case CategoryColumn: return toQString(name(r.category)).replace('_', ' ');
        case ACount:
        case BCount: return QLocale().toString(raw());
        case Change: return (r.growth() > 0 ? QStringLiteral("+") : QString()) + bytesText(r.growth());
        default: return bytesText(raw());
      }
    case SortRole: return numeric ? QVariant(raw()) : data(index, Qt::DisplayRole);
    case Qt::ToolTipRole:
      if (numeric && index.column() != ACount && index.column() != BCount) return tr("%L1 bytes").arg(raw());
      return index.column() == Site ? QVariant(toQString(r.site)) : QVariant();
    case Qt::ForegroundRole:
      if (index.column() == Change && r.growth() != 0) return r.growth() > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32);
      return {};
    case Qt::TextAlignmentRole:
      return numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
  }
}

QVariant DiffRowsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= kColumns) return {};
  switch (section) {
    case Site: return tr("Call site");
    case CategoryColumn: return tr("Category");
    case ABytes: return tr("A at its peak");
    case BBytes: return tr("B at its peak");
    case Change: return tr("Change");
    case ATotal: return tr("A allocated in all");
    case BTotal: return tr("B allocated in all");
    case ACount: return tr("A allocations");
    case BCount: return tr("B allocations");
  }
  return {};
}

}  // namespace sawtooth::views
