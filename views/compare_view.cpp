#include "views/compare_view.h"

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/analysis/experiment_results.h"
#include "core/analysis/peaks.h"
#include "views/experiment_charts.h"
#include "views/qt_format.h"

namespace sawtooth::views {

std::shared_ptr<const Trace> mergeForComparison(const Trace& a, const Trace& b) {
  auto out = std::make_shared<Trace>();
  out->format = "comparison";
  auto copy = [&](const Trace& src, int16_t offset, const QString& who) {
    const uint32_t phase_base = static_cast<uint32_t>(out->phases.size());
    const auto run_base = static_cast<uint16_t>(out->runs.size());
    for (Phase p : src.phases) {
      if (p.device != kAllDevices) p.device = static_cast<int16_t>(p.device + offset);
      if (p.run != kNoRun) p.run = static_cast<uint16_t>(p.run + run_base);
      p.name = who.toStdString() + ": " + p.name;
      out->phases.push_back(std::move(p));
    }
    for (Run r : src.runs) {
      r.name = who.toStdString() + ": " + r.name;
      out->runs.push_back(std::move(r));
    }
    for (int16_t id : src.deviceIds()) {
      DeviceInfo info = src.device(id) ? *src.device(id) : DeviceInfo{};
      info.device = static_cast<int16_t>(id + offset);
      info.label = who.toStdString() + " " + deviceLabel(id);
      out->deviceInfo(info.device) = info;
    }
    for (const Counter& c : src.counters) {
      Counter copy_of = c;
      copy_of.device = static_cast<int16_t>(c.device + offset);
      for (auto& e : copy_of.after_event) e += out->events.size();
      out->counters.push_back(std::move(copy_of));
    }
    // Stacks are not carried over: the comparison is about the series, hover shows the rest.
    for (size_t i = 0; i < src.events.size(); ++i) {
      Event e = src.events.at(i);
      e.device = static_cast<int16_t>(e.device + offset);
      if (e.phase != kNoPhase) e.phase += phase_base;
      if (e.run != kNoRun) e.run = static_cast<uint16_t>(e.run + run_base);
      e.stack = kNoStack;
      out->events.push(e);
    }
  };
  copy(a, 0, QStringLiteral("A"));
  copy(b, kCompareOffset, QStringLiteral("B"));
  return out;
}

CompareView::CompareView(QWidget* parent) : QWidget(parent), timeline_(new TimelineChart(this)), table_(new QTableWidget(this)) {
  table_->setColumnCount(5);
  table_->setHorizontalHeaderLabels({tr("What"), tr("A"), tr("B"), tr("B − A"), tr("B / A")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(timeline_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split);
}

void CompareView::setTraces(std::shared_ptr<const TraceAnalysis> a, const QString& name_a,
                            std::shared_ptr<const TraceAnalysis> b, const QString& name_b) {
  auto merged = std::make_shared<const TraceAnalysis>(mergeForComparison(a->trace(), b->trace()));
  timeline_->setTitle(tr("A: %1 against B: %2").arg(name_a, name_b));
  timeline_->setPhaseLegendVisible(false);
  timeline_->setBandsVisible(false);
  // The GPUs, when there are any: the host's few allocations would only crowd the legend.
  std::set<int16_t> gpus;
  for (const auto& d : merged->devices())
    if (d->device != kCpuDevice && d->device != kCompareOffset + kCpuDevice) gpus.insert(d->device);
  timeline_->setVisibleDevices(gpus);
  timeline_->setAnalysis(merged);

  struct Row {
    QString what;
    double a, b;
  };
  std::vector<Row> rows;
  for (const auto& da : a->devices()) {
    const DeviceAnalysis* db = b->device(da->device);
    if (!db) continue;
    const QString dev = toQString(deviceLabel(da->device));
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed}) {
      const SeriesAnalysis* la = da->line(kind);
      const SeriesAnalysis* lb = db->line(kind);
      if (la && lb)
        rows.push_back({tr("%1 peak %2").arg(dev, toQString(name(kind)).replace('_', ' ')), static_cast<double>(la->peak.value),
                        static_cast<double>(lb->peak.value)});
    }
  }
  // Runs of the same name (fp32 against fp32, k=4 against k=4).
  for (const auto& ga : peakComparison(a->trace()))
    for (const auto& gb : peakComparison(b->trace()))
      if (ga.run == gb.run) rows.push_back({tr("run %1 peak allocated").arg(toQString(ga.run)), ga.peak_allocated, gb.peak_allocated});

  table_->setRowCount(static_cast<int>(rows.size()));
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const Row& row = rows[static_cast<size_t>(r)];
    auto item = [](const QString& text) {
      auto* it = new QTableWidgetItem(text);
      it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      return it;
    };
    table_->setItem(r, 0, new QTableWidgetItem(row.what));
    table_->setItem(r, 1, item(bytesText(static_cast<qint64>(row.a))));
    table_->setItem(r, 2, item(bytesText(static_cast<qint64>(row.b))));
    table_->setItem(r, 3, item(bytesText(static_cast<qint64>(row.b - row.a))));
    table_->setItem(r, 4, item(row.a > 0 ? signedPercent(row.b / row.a - 1) : QString()));
  }
  table_->resizeColumnsToContents();
}

}  // namespace sawtooth::views
