#include "views/events_table_model.h"

#include "core/analysis/frame_filter.h"
#include "core/analysis/short_labels.h"
#include "views/qt_format.h"
#include "views/views_logging.h"

namespace sawtooth::views {

EventsTableModel::EventsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventsTableModel::setTrace(std::shared_ptr<const Trace> trace) {
  beginResetModel();
  paged_.reset();
  pages_.clear();
  page_order_.clear();
  asked_.clear();
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

void EventsTableModel::setPagedRows(std::shared_ptr<const Trace> tables, const EventPageRows& rows) {
  beginResetModel();
  if (tables != trace_) top_frames_.assign(tables ? tables->stacks.stackCount() : 0, QString());
  trace_ = std::move(tables);
  rows_ = EventRows{};
  paged_ = rows;
  pages_.clear();
  page_order_.clear();
  asked_.clear();
  endResetModel();
  qCDebug(lcTables) << "events table, paged:" << rows.size << "of" << rows.total << "rows";
}

void EventsTableModel::setPage(const EventPage& page, const EventQuery& of) {
  if (!paged_ || of.filter != paged_->query.filter || of.sort != paged_->query.sort ||
      of.descending != paged_->query.descending)
    return;
  asked_.erase(page.first_row);
  if (page.index.empty()) return;
  pages_[page.first_row] = std::make_shared<const EventPage>(page);
  page_order_.push_back(page.first_row);
  while (page_order_.size() > kKeptPages) {
    pages_.erase(page_order_.front());
    page_order_.erase(page_order_.begin());
  }
  const int first = static_cast<int>(std::min<uint64_t>(page.first_row, INT32_MAX));
  const int last = static_cast<int>(std::min<uint64_t>(page.first_row + page.index.size() - 1, INT32_MAX));
  emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

qint64 EventsTableModel::shownRows() const {
  return paged_ ? static_cast<qint64>(paged_->size) : static_cast<qint64>(rows_.size());
}

const EventPage* EventsTableModel::pageOf(int row, size_t& at) const {
  const uint64_t first = static_cast<uint64_t>(row) / kPageRows * kPageRows;
  if (auto it = pages_.find(first); it != pages_.end()) {
    at = static_cast<size_t>(static_cast<uint64_t>(row) - first);
    return at < it->second->index.size() ? it->second.get() : nullptr;
  }
  if (asked_.insert(first).second) {
    // Asked for from a paint (data() is const): the signal goes out once the paint is over.
    auto* self = const_cast<EventsTableModel*>(this);
    QMetaObject::invokeMethod(self, [self, first] { emit self->pageWanted(first); }, Qt::QueuedConnection);
  }
  return nullptr;
}

void EventsTableModel::sort(int column, Qt::SortOrder order) {
  if (column < 0 || column >= ColumnCount) return;
  emit sortRequested(static_cast<EventColumn>(column), order == Qt::DescendingOrder);
}

int EventsTableModel::rowOfEvent(qint64 event) const {
  if (event < 0) return -1;
  if (paged_) {  // without a filter a row is its event; with one, only rows read say theirs
    const auto e = static_cast<uint64_t>(event);
    if (paged_->all && e < paged_->size)
      return static_cast<int>(std::min<uint64_t>(paged_->query.descending ? paged_->size - 1 - e : e, INT32_MAX));
    for (const auto& [first, page] : pages_)
      for (size_t i = 0; i < page->index.size(); ++i)
        if (page->index[i] == e) return static_cast<int>(std::min<uint64_t>(first + i, INT32_MAX));
    return -1;
  }
  return static_cast<int>(rows_.rowOf(static_cast<uint64_t>(event)));
}

qint64 EventsTableModel::eventAt(int row) const {
  if (row < 0 || row >= rowCount()) return -1;
  if (paged_) {
    size_t at = 0;
    const EventPage* page = pageOf(row, at);
    return page ? static_cast<qint64>(page->index[at]) : -1;
  }
  return static_cast<qint64>(rows_.eventAt(static_cast<size_t>(row)));
}

qint64 EventsTableModel::totalEvents() const {
  return static_cast<qint64>(paged_ ? paged_->total : rows_.total);
}

int EventsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !trace_ ? 0 : static_cast<int>(std::min<qint64>(shownRows(), INT32_MAX));
}

int EventsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "Time", "Device", "Source", "Action", "Size", "Address", "Stream", "Category", "Phase", "Run", "Top frame"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant EventsTableModel::data(const QModelIndex& index, int role) const {
  if (!trace_ || !index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  if (role == Qt::TextAlignmentRole) {
    const int c = index.column();
    return c == Index || c == Time || c == Size || c == Stream ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  }
  if (paged_) {
    size_t at = 0;
    const EventPage* page = pageOf(index.row(), at);
    if (!page) return role == Qt::DisplayRole ? QVariant(QStringLiteral("…")) : QVariant();
    if (index.column() == Phase && role == Qt::DisplayRole) return toQString(page->phase_names[at]);
    return cell(*trace_, page->events, at, static_cast<qint64>(page->index[at]), index.column(), role);
  }
  const size_t i = rows_.eventAt(static_cast<size_t>(index.row()));
  if (i >= trace_->events.size()) return {};
  return cell(*trace_, trace_->events, i, static_cast<qint64>(i), index.column(), role);
}

QVariant EventsTableModel::cell(const Trace& t, const EventStore& ev, size_t i, qint64 event, int column, int role) const {
  if (role == EventRole) return event;
  if (role == Qt::ToolTipRole && column == Size) return tr("%L1 bytes").arg(ev.sizes()[i]);
  if (role == Qt::ToolTipRole && column == Time) return tr("%L1 ns").arg(ev.tNs()[i]);
  if (role == Qt::ToolTipRole && column == Run && ev.run()[i] < t.runs.size()) return toQString(t.runs[ev.run()[i]].name);
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case Index: return event;
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
