#include "views/precision_view.h"

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/analysis/experiment_results.h"
#include "views/experiment_charts.h"
#include "views/qt_format.h"

namespace sawtooth::views {

PrecisionView::PrecisionView(QWidget* parent)
    : QWidget(parent), chart_(new BarChart(this)), table_(new QTableWidget(this)), note_(new QLabel(this)) {
  table_->setColumnCount(8);
  table_->setHorizontalHeaderLabels({tr("Mode"), tr("Median"), tr("Min – max"), tr("Speed-up vs fp32"), tr("vs TF32"),
                                     tr("TFLOP/s"), tr("Peak allocated"), tr("Settings")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  note_->setWordWrap(true);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({600, 190});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split, 1);
  layout->addWidget(note_);
}

bool PrecisionView::setTrace(const Trace& trace) {
  if (!showPrecisionTiming(*chart_, trace)) return false;
  const auto rows = precisionResults(trace);
  table_->setRowCount(static_cast<int>(rows.size()));
  auto cell = [this](int r, int c, const QString& text, bool number = true) {
    auto* item = new QTableWidgetItem(text);
    if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(r, c, item);
  };
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const PrecisionRow& row = rows[static_cast<size_t>(r)];
    cell(r, 0, toQString(row.mode), false);
    cell(r, 1, QStringLiteral("%1 ms").arg(row.time.median_ms, 0, 'f', 3));
    cell(r, 2, QStringLiteral("%1 – %2 ms").arg(row.time.min_ms, 0, 'f', 3).arg(row.time.max_ms, 0, 'f', 3));
    cell(r, 3, row.speedup_vs_fp32 ? QStringLiteral("×%1").arg(*row.speedup_vs_fp32, 0, 'f', 2) : QString());
    cell(r, 4, row.speedup_vs_tf32 ? QStringLiteral("×%1").arg(*row.speedup_vs_tf32, 0, 'f', 2) : QString());
    cell(r, 5, row.tflops ? QString::number(*row.tflops, 'f', 1) : QString());
    cell(r, 6, row.peak_allocated ? bytesText(static_cast<qint64>(*row.peak_allocated)) : QString());
    cell(r, 7, toQString(row.settings), false);
  }
  table_->resizeColumnsToContents();
  // The configuration every mode shared (what differs per mode is in the table).
  QStringList shared;
  if (!trace.runs.empty())
    for (const auto& [k, v] : trace.runs.front().config)
      if (k != "mode" && k != "modes" && k.find("precision") == std::string::npos && k != "autocast" &&
          k != "loss_scaling" && k != "allow_tf32_cublas")
        shared << QStringLiteral("%1 %2").arg(toQString(k), toQString(v));
  note_->setText(tr("Each bar is the median of the timed steps after warm-up (CUDA events on a GPU), the whiskers "
                    "their minimum and maximum; every mode ran the same network and batch (%1). fp32 has TF32 off, "
                    "the unfair baseline; TF32 is the fair one.")
                     .arg(shared.join(QStringLiteral(", "))));
  return true;
}

}  // namespace sawtooth::views
