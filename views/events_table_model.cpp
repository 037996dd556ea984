#include "views/events_table_model.h"

#include <QRegularExpression>
#include <algorithm>
#include <numeric>

#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

struct SizeTest {
  QString op;
  qint64 bytes = 0;
  bool matches(int64_t size) const {
    if (op == ">=") return size >= bytes;
    if (op == "<=") return size <= bytes;
    if (op == ">") return size > bytes;
    if (op == "<") return size < bytes;
    return size == bytes;
  }
};

struct ParsedFilter {
  QStringList words;
  std::vector<SizeTest> sizes;
  QString device;
};

bool parseFilter(const QString& text, ParsedFilter& out, QString& error) {
  static const QRegularExpression size_re(QStringLiteral("^size(>=|<=|>|<|=)(.+)$"));
  for (const QString& token : text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
    if (auto m = size_re.match(token); m.hasMatch()) {
      SizeTest t;
      t.op = m.captured(1);
      if (!EventsTableModel::parseBytes(m.captured(2), t.bytes)) {
        error = QObject::tr("'%1' is not a size (try size>=1MB)").arg(m.captured(2));
        return false;
      }
      out.sizes.push_back(t);
    } else if (token.startsWith(QStringLiteral("device:"))) {
      out.device = token.mid(7).toLower();
    } else {
      out.words.append(token.toLower());
    }
  }
  return true;
}

}  // namespace

EventsTableModel::EventsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

bool EventsTableModel::parseBytes(const QString& text, qint64& bytes) {
  static const QRegularExpression re(QStringLiteral("^\\s*([0-9]*\\.?[0-9]+)\\s*([kKmMgGtT]?i?[bB]?)\\s*$"));
  const auto m = re.match(text);
  if (!m.hasMatch()) return false;
  const double value = m.captured(1).toDouble();
  QString unit = m.captured(2).toLower();
  const bool binary = unit.contains('i');
  unit.remove('i').remove('b');
  double scale = 1;
  const double base = binary ? 1024.0 : 1000.0;
  if (unit == "k") scale = base;
  else if (unit == "m") scale = base * base;
  else if (unit == "g") scale = base * base * base;
  else if (unit == "t") scale = base * base * base * base;
  bytes = static_cast<qint64>(value * scale);
  return true;
}

void EventsTableModel::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  beginResetModel();
  analysis_ = std::move(analysis);
  rebuildRows();
  endResetModel();
}

bool EventsTableModel::setFilter(const QString& text) {
  ParsedFilter parsed;
  QString error;
  if (!parseFilter(text, parsed, error)) {
    filter_error_ = error;
    return false;
  }
  filter_error_.clear();
  beginResetModel();
  filter_ = text;
  rebuildRows();
  endResetModel();
  return true;
}

void EventsTableModel::rebuildRows() {
  rows_.clear();
  if (!analysis_) return;
  const Trace& t = analysis_->trace();
  const auto& ev = t.events;
  ParsedFilter f;
  QString ignored;
  parseFilter(filter_, f, ignored);

  if (f.words.isEmpty() && f.sizes.empty() && f.device.isEmpty()) {
    rows_.resize(ev.size());
    std::iota(rows_.begin(), rows_.end(), uint64_t{0});
  } else {
    // A word matches an event when it is in any of its texts; the texts come from small tables
    // (actions, phases, stacks), so each is tested once per table entry, not once per event.
    auto matchesAll = [&](const QString& text) {
      const QString lower = text.toLower();
      QList<bool> hits;
      for (const QString& w : f.words) hits.append(lower.contains(w));
      return hits;
    };
    const int nwords = static_cast<int>(f.words.size());
    std::vector<QList<bool>> action_hits(kActionCount), category_hits(kCategoryCount), source_hits(kSourceCount);
    for (int i = 0; i < kActionCount; ++i) action_hits[static_cast<size_t>(i)] = matchesAll(toQString(name(static_cast<sawtooth::Action>(i))));
    for (int i = 0; i < kCategoryCount; ++i) category_hits[static_cast<size_t>(i)] = matchesAll(toQString(name(static_cast<sawtooth::Category>(i))));
    for (int i = 0; i < kSourceCount; ++i) source_hits[static_cast<size_t>(i)] = matchesAll(toQString(name(static_cast<sawtooth::Source>(i))));
    std::vector<QList<bool>> phase_hits(t.phases.size()), run_hits(t.runs.size()), stack_hits(t.stacks.stackCount());
    for (size_t i = 0; i < t.phases.size(); ++i) phase_hits[i] = matchesAll(toQString(t.phases[i].name));
    for (size_t i = 0; i < t.runs.size(); ++i) run_hits[i] = matchesAll(toQString(t.runs[i].name));
    for (size_t i = 0; i < t.stacks.stackCount(); ++i) {
      auto frames = t.stacks.stack(static_cast<uint32_t>(i));
      QString text;
      for (uint32_t fr : frames) text += toQString(t.stacks.frame(fr).name) + ' ' + toQString(t.stacks.frame(fr).file) + ' ';
      stack_hits[i] = matchesAll(text);
    }
    const QList<bool> none(nwords, false);
    for (size_t i = 0; i < ev.size(); ++i) {
      if (!f.device.isEmpty() && toQString(deviceLabel(ev.device()[i])) != f.device) continue;
      bool ok = true;
      for (const SizeTest& s : f.sizes) ok = ok && s.matches(ev.sizes()[i]);
      if (!ok) continue;
      const auto& a = action_hits[static_cast<size_t>(ev.action()[i])];
      const auto& c = category_hits[static_cast<size_t>(ev.category()[i])];
      const auto& so = source_hits[static_cast<size_t>(ev.source()[i])];
      const auto& p = ev.phase()[i] < phase_hits.size() ? phase_hits[ev.phase()[i]] : none;
      const auto& r = ev.run()[i] < run_hits.size() ? run_hits[ev.run()[i]] : none;
      const auto& st = ev.stack()[i] < stack_hits.size() ? stack_hits[ev.stack()[i]] : none;
      for (int w = 0; w < nwords && ok; ++w) ok = a[w] || c[w] || so[w] || p[w] || r[w] || st[w];
      if (ok) rows_.push_back(i);
    }
  }
  sortRows(sort_column_, sort_order_);
}

void EventsTableModel::sort(int column, Qt::SortOrder order) {
  if (!analysis_) return;
  emit layoutAboutToBeChanged();
  sortRows(column, order);
  sort_column_ = column;
  sort_order_ = order;
  emit layoutChanged();
}

void EventsTableModel::sortRows(int column, Qt::SortOrder order) {
  if (column == Index && order == Qt::AscendingOrder) return;  // rows_ is built in this order
  const auto& ev = analysis_->trace().events;
  const auto& t = analysis_->trace();
  auto by = [&](auto key) {
    std::stable_sort(rows_.begin(), rows_.end(), [&](uint64_t a, uint64_t b) {
      return order == Qt::AscendingOrder ? key(a) < key(b) : key(b) < key(a);
    });
  };
  switch (column) {
    case Time: by([&](uint64_t i) { return ev.tNs()[i]; }); break;
    case Device: by([&](uint64_t i) { return ev.device()[i]; }); break;
    case Source: by([&](uint64_t i) { return ev.source()[i]; }); break;
    case Action: by([&](uint64_t i) { return name(ev.action()[i]); }); break;
    case Size: by([&](uint64_t i) { return ev.sizes()[i]; }); break;
    case Address: by([&](uint64_t i) { return ev.addr()[i]; }); break;
    case Stream: by([&](uint64_t i) { return ev.stream()[i]; }); break;
    case Category: by([&](uint64_t i) { return name(ev.category()[i]); }); break;
    case Phase: by([&](uint64_t i) { return ev.phase()[i] < t.phases.size() ? std::string_view(t.phases[ev.phase()[i]].name) : std::string_view(); }); break;
    case Run: by([&](uint64_t i) { return ev.run()[i]; }); break;
    case TopFrame: {
      std::vector<QString> frames(t.stacks.stackCount());
      for (size_t s = 0; s < frames.size(); ++s) frames[s] = topFrame(s);  // by stack, not by event
      by([&](uint64_t i) { return ev.stack()[i] < frames.size() ? frames[ev.stack()[i]] : QString(); });
      break;
    }
    default: by([](uint64_t i) { return i; }); break;
  }
}

QString EventsTableModel::topFrame(size_t stack) const {
  const Trace& t = analysis_->trace();
  if (stack >= t.stacks.stackCount()) return {};
  auto frames = t.stacks.stack(static_cast<uint32_t>(stack));
  for (uint32_t f : frames) {
    const FrameView fr = t.stacks.frame(f);
    if (fr.file.size() > 3 && fr.file.substr(fr.file.size() - 3) == ".py")
      return QStringLiteral("%1 (%2:%3)").arg(toQString(fr.name), toQString(fr.file).section('/', -1)).arg(fr.line);
  }
  return frames.empty() ? QString() : toQString(t.stacks.frame(frames.front()).name);
}

int EventsTableModel::rowOfEvent(qint64 event) const {
  for (size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r] == static_cast<uint64_t>(event)) return static_cast<int>(r);
  return -1;
}

qint64 EventsTableModel::eventAt(int row) const {
  return row >= 0 && static_cast<size_t>(row) < rows_.size() ? static_cast<qint64>(rows_[static_cast<size_t>(row)]) : -1;
}

qint64 EventsTableModel::totalEvents() const { return analysis_ ? static_cast<qint64>(analysis_->trace().events.size()) : 0; }

int EventsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(std::min<size_t>(rows_.size(), INT32_MAX));
}

int EventsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "Time", "Device", "Source", "Action", "Size", "Address", "Stream", "Category", "Phase", "Run", "Top frame"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant EventsTableModel::data(const QModelIndex& index, int role) const {
  if (!analysis_ || !index.isValid() || static_cast<size_t>(index.row()) >= rows_.size()) return {};
  const size_t i = rows_[static_cast<size_t>(index.row())];
  const Trace& t = analysis_->trace();
  const auto& ev = t.events;
  if (role == EventRole) return static_cast<qint64>(i);
  if (role == Qt::TextAlignmentRole) {
    const int c = index.column();
    return c == Index || c == Time || c == Size || c == Stream ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  }
  if (role == Qt::ToolTipRole && index.column() == Size) return QStringLiteral("%1 bytes").arg(ev.sizes()[i]);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Index: return static_cast<qint64>(i);
    case Time: return durationText(ev.tNs()[i]);
    case Device: return toQString(deviceLabel(ev.device()[i]));
    case Source: return toQString(name(ev.source()[i]));
    case Action: return toQString(name(ev.action()[i]));
    case Size: return bytesText(ev.sizes()[i]);
    case Address: return ev.action()[i] == sawtooth::Action::Oom || ev.action()[i] == sawtooth::Action::Sample ? QString() : addressText(ev.addr()[i]);
    case Stream: return static_cast<qulonglong>(ev.stream()[i]);
    case Category: return toQString(name(ev.category()[i]));
    case Phase: return ev.phase()[i] < t.phases.size() ? toQString(t.phases[ev.phase()[i]].name) : QString();
    case Run: return ev.run()[i] < t.runs.size() ? toQString(t.runs[ev.run()[i]].name) : QString();
    case TopFrame: return topFrame(ev.stack()[i]);
    default: return {};
  }
}

}  // namespace sawtooth::views
