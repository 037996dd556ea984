#include "views/runs_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QSortFilterProxyModel>
#include <set>

#include "views/qt_format.h"
#include "views/table_csv.h"

namespace sawtooth::views {
namespace {

bool isSample(const std::string& name) { return name.size() > 10 && name.ends_with("_sample_ms"); }

QString formatValue(double v, const std::string& unit) {
  if (unit == "bytes") return bytesText(static_cast<qint64>(v));
  if (unit == "ms") return QStringLiteral("%1 ms").arg(v, 0, 'f', 3);
  if (unit == "TFLOP/s") return QStringLiteral("%1 TFLOP/s").arg(v, 0, 'f', 1);
  if (unit == "ratio") return QStringLiteral("%1 %").arg(v * 100, 0, 'f', 1);
  if (unit.empty()) return QString::number(v, 'g', 6);
  return QStringLiteral("%1 %2").arg(QString::number(v, 'g', 6), toQString(unit));
}

}  // namespace

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setTrace(std::shared_ptr<const Trace> trace) {
  beginResetModel();
  trace_ = std::move(trace);
  columns_.clear();
  if (trace_) {
    columns_.push_back({tr("Run"), "", false, ""});
    // Configuration that differs between runs first (what makes each run what it is).
    std::vector<std::string> config_keys;
    for (const auto& r : trace_->runs)
      for (const auto& [k, v] : r.config)
        if (std::find(config_keys.begin(), config_keys.end(), k) == config_keys.end()) config_keys.push_back(k);
    for (const auto& k : config_keys) {
      std::set<std::string> values;
      for (const auto& r : trace_->runs) values.insert(r.configValue(k).value_or(""));
      if (values.size() > 1 || trace_->runs.size() == 1) columns_.push_back({toQString(k), k, false, ""});
    }
    std::vector<std::string> names;
    for (const auto& r : trace_->runs)
      for (const auto& m : r.measurements)
        if (!isSample(m.name) && std::find(names.begin(), names.end(), m.name) == names.end()) {
          names.push_back(m.name);
          columns_.push_back({toQString(m.name).replace('_', ' '), m.name, true, m.unit});
        }
  }
  endResetModel();
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !trace_ ? 0 : static_cast<int>(trace_->runs.size());
}
int RunsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(columns_.size()); }

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || static_cast<size_t>(section) >= columns_.size())
    return {};
  return columns_[static_cast<size_t>(section)].title;
}

QString RunsTableModel::text(int row, int column) const {
  if (!trace_ || row < 0 || static_cast<size_t>(row) >= trace_->runs.size() || column < 0 ||
      static_cast<size_t>(column) >= columns_.size())
    return {};
  const Run& run = trace_->runs[static_cast<size_t>(row)];
  const Column& c = columns_[static_cast<size_t>(column)];
  if (c.key.empty()) return toQString(run.name);
  if (!c.measurement) return toQString(run.configValue(c.key).value_or(""));
  const Measurement* m = run.measurement(c.key);
  return m ? formatValue(m->value, m->unit) : QString();
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !trace_) return {};
  if (role == Qt::DisplayRole) return text(index.row(), index.column());
  const Column& c = columns_[static_cast<size_t>(index.column())];
  const Run& run = trace_->runs[static_cast<size_t>(index.row())];
  if (role == Qt::UserRole && c.measurement) {  // numeric sort key
    const Measurement* m = run.measurement(c.key);
    return m ? QVariant(m->value) : QVariant();
  }
  if (role == Qt::UserRole) return text(index.row(), index.column());
  if (role == Qt::ToolTipRole && c.measurement) {
    const Measurement* m = run.measurement(c.key);
    return m ? QStringLiteral("%1 = %2 %3").arg(toQString(m->name)).arg(m->value, 0, 'g', 12).arg(toQString(m->unit)) : QVariant();
  }
  if (role == Qt::TextAlignmentRole && c.measurement) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

bool RunsTableModel::exportCsv(const QString& path, QString* error) const {
  // Raw numbers in the CSV (bytes, ms), the unit in the header.
  QStringList header;
  for (const auto& c : columns_) header << (c.unit.empty() ? c.title : QStringLiteral("%1 (%2)").arg(c.title, toQString(c.unit)));
  return writeCsv(path, header, rowCount(), [this](int r) {
    QStringList cells;
    const Run& run = trace_->runs[static_cast<size_t>(r)];
    for (int c = 0; c < columnCount(); ++c) {
      const Column& col = columns_[static_cast<size_t>(c)];
      if (col.measurement) {
        const Measurement* m = run.measurement(col.key);
        cells << (m ? QString::number(m->value, 'g', 17) : QString());
      } else {
        cells << text(r, c);
      }
    }
    return cells;
  }, error);
}

RunsView::RunsView(QWidget* parent) : QTableView(parent), model_(new RunsTableModel(this)) {
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(model_);
  proxy->setSortRole(Qt::UserRole);
  setModel(proxy);
  setSortingEnabled(true);
  setSelectionBehavior(QAbstractItemView::SelectItems);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  verticalHeader()->hide();
  setAlternatingRowColors(true);
  horizontalHeader()->setStretchLastSection(true);
}

void RunsView::setTrace(std::shared_ptr<const Trace> trace) {
  model_->setTrace(std::move(trace));
  resizeColumnsToContents();
}

QString RunsView::selectionAsText() const {
  const QModelIndexList selected = selectionModel() ? selectionModel()->selectedIndexes() : QModelIndexList();
  if (selected.isEmpty()) return {};
  int r0 = INT32_MAX, r1 = -1, c0 = INT32_MAX, c1 = -1;
  for (const QModelIndex& i : selected) r0 = std::min(r0, i.row()), r1 = std::max(r1, i.row()), c0 = std::min(c0, i.column()), c1 = std::max(c1, i.column());
  QStringList lines;
  QStringList header;
  for (int c = c0; c <= c1; ++c) header << model()->headerData(c, Qt::Horizontal).toString();
  lines << header.join('\t');
  for (int r = r0; r <= r1; ++r) {
    QStringList cells;
    for (int c = c0; c <= c1; ++c) cells << model()->index(r, c).data().toString();
    lines << cells.join('\t');
  }
  return lines.join('\n');
}

void RunsView::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    QApplication::clipboard()->setText(selectionAsText());
    return;
  }
  QTableView::keyPressEvent(event);
}

}  // namespace sawtooth::views
