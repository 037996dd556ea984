#include "views/events_table_model.h"

#include "core/analysis/frame_filter.h"
#include "core/analysis/short_labels.h"
#include "views/qt_format.h"
#include "views/views_logging.h"

namespace sawtooth::views {

EventsTableModel::EventsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventsTableModel::setTrace(std::shared_ptr<const Trace> trace) {
  beginResetModel();
  trace_ = std::move(trace);
  rows_ = EventRows{};
  rows_.total = trace_ ? trace_->events.size() : 0;
  top_frames_.assign(trace_ ? trace_->stacks.stackCount() : 0, QString());
  endResetModel();
}

void EventsTableModel::setRows(const EventRows& rows, const std::shared_ptr<const Trace>& of) {
  if (of != trace_) return;
  beginResetModel();
  rows_ = rows;
  endResetModel();
  qCDebug(lcTables) << "events table:" << rows_.size() << "of" << rows_.total << "rows";
}

void EventsTableModel::sort(int column, Qt::SortOrder order) {
  if (column < 0 || column >= ColumnCount) return;
  emit sortRequested(static_cast<EventColumn>(column), order == Qt::DescendingOrder);
}

int EventsTableModel::rowOfEvent(qint64 event) const {
  return event < 0 ? -1 : static_cast<int>(rows_.rowOf(static_cast<uint64_t>(event)));
}

qint64 EventsTableModel::eventAt(int row) const {
  return row >= 0 && static_cast<size_t>(row) < rows_.size() ? static_cast<qint64>(rows_.eventAt(static_cast<size_t>(row)))
                                                              : -1;
}

qint64 EventsTableModel::totalEvents() const { return static_cast<qint64>(rows_.total); }

int EventsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !trace_ ? 0 : static_cast<int>(std::min<size_t>(rows_.size(), INT32_MAX));
}

int EventsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "Time", "Device", "Source", "Action", "Size", "Address", "Stream", "Category", "Phase", "Run", "Top frame"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant EventsTableModel::data(const QModelIndex& index, int role) const {
  if (!trace_ || !index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const size_t i = rows_.eventAt(static_cast<size_t>(index.row()));
  const Trace& t = *trace_;
  const auto& ev = t.events;
  if (i >= ev.size()) return {};
  if (role == EventRole) return static_cast<qint64>(i);
  if (role == Qt::TextAlignmentRole) {
    const int c = index.column();
    return c == Index || c == Time || c == Size || c == Stream ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  }
  if (role == Qt::ToolTipRole && index.column() == Size) return tr("%L1 bytes").arg(ev.sizes()[i]);
  if (role == Qt::ToolTipRole && index.column() == Time) return tr("%L1 ns").arg(ev.tNs()[i]);
  if (role == Qt::ToolTipRole && index.column() == Run && ev.run()[i] < t.runs.size()) return toQString(t.runs[ev.run()[i]].name);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Index: return static_cast<qint64>(i);
    case Time: return durationText(ev.tNs()[i]);
    case Device: return toQString(t.deviceName(ev.device()[i]));
    case Source: return toQString(name(ev.source()[i]));
    case Action: return toQString(name(ev.action()[i]));
    case Size: return bytesText(ev.sizes()[i]);
    case Address:
      return ev.action()[i] == sawtooth::Action::Oom || ev.action()[i] == sawtooth::Action::Sample ? QString()
                                                                                                   : addressText(ev.addr()[i]);
    case Stream: return static_cast<qulonglong>(ev.stream()[i]);
    case Category: return toQString(name(ev.category()[i]));
    case Phase: return ev.phase()[i] < t.phases.size() ? toQString(t.phases[ev.phase()[i]].name) : QString();
    case Run: {  // a recorded program's run is its command line: without its folders here, whole in the tooltip
      constexpr size_t kRunChars = 40;
      return ev.run()[i] < t.runs.size() ? toQString(compactCommand(t.runs[ev.run()[i]].name, kRunChars)) : QString();
    }
    case TopFrame: {
      const uint32_t stack = ev.stack()[i];
      if (stack >= top_frames_.size()) return QString();
      QString& cached = top_frames_[stack];  // what core computes, once per stack
      if (cached.isNull()) cached = toQString(topFrameText(t.stacks, stack));
      return cached;
    }
    default: return {};
  }
}

}  // namespace sawtooth::views
