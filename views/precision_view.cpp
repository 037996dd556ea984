#include "views/precision_view.h"

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "views/experiment_charts.h"
#include "views/qt_format.h"

namespace sawtooth::views {

PrecisionView::PrecisionView(QWidget* parent)
    : QWidget(parent), chart_(new BarChart(this)), model_(new TableModel(this)), table_(new QTableView(this)),
      note_(new QLabel(this)) {
  table_->setModel(model_);
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

bool PrecisionView::setReport(const TraceReport& report) {
  if (!showPrecisionTiming(*chart_, report.precision)) return false;
  model_->setTable(std::make_shared<const Table>(report.precision_table));
  table_->resizeColumnsToContents();
  note_->setText(tr("Each bar is the median of the timed steps after warm-up (CUDA events on a GPU), the whiskers "
                    "their minimum and maximum; every mode ran the same network and batch (%1). fp32 has TF32 off, "
                    "the unfair baseline; TF32 is the fair one. A difference within the modes' spread (their "
                    "interquartile range, or min–max under 5 steps) is labelled \"within noise\", never a speed-up.")
                     .arg(toQString(report.precision_shared_config)));
  return true;
}

}  // namespace sawtooth::views
