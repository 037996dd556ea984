#include "views/compare_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QVBoxLayout>

#include "views/qt_format.h"

namespace sawtooth::views {

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), note_(new QLabel(this)), align_(new QComboBox(this)), timeline_(new TimelineChart(this)),
      model_(new TableModel(this)), table_(new QTableView(this)) {
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  align_->addItem(tr("align by allocation event"), static_cast<int>(Alignment::EventIndex));
  align_->addItem(tr("align in time"), static_cast<int>(Alignment::Time));
  align_->addItem(tr("align by step"), static_cast<int>(Alignment::Step));
  align_->setToolTip(tr("Line the traces up by each device's count of allocation events, by time from their start, "
                        "or step by step (B's steps stretched onto A's)"));
  table_->setModel(model_);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  timeline_->setPhaseLegendVisible(false);
  timeline_->setBandsVisible(false);
  timeline_->setLinesEndAtLastPoint(true);
  auto* top = new QHBoxLayout;
  top->addWidget(note_, 1);
  top->addWidget(align_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(timeline_, 1);
  layout->addWidget(table_);
  connect(align_, &QComboBox::currentIndexChanged, this,
          [this] { emit alignmentChanged(static_cast<Alignment>(align_->currentData().toInt())); });
}

Alignment CompareView::alignment() const { return static_cast<Alignment>(align_->currentData().toInt()); }

void CompareView::setAlignment(Alignment alignment) { align_->setCurrentIndex(align_->findData(static_cast<int>(alignment))); }

void CompareView::setBusy(const QString& message) { note_->setText(message); }

void CompareView::setFailed(const QString& message) {
  note_->setText(tr("<b>The comparison failed:</b> %1").arg(message.toHtmlEscaped()));
}

void CompareView::setComparison(std::shared_ptr<const Comparison> comparison) {
  comparison_ = std::move(comparison);
  note_->setText(toQString(comparison_->note).toHtmlEscaped());
  timeline_->setTitle(QString());
  // The GPUs, when there are any: the host's few allocations would only crowd the legend.
  std::set<int16_t> gpus;
  for (const auto& d : comparison_->merged->devices())
    if (d->device != kCpuDevice && d->device != kCompareOffset + kCpuDevice) gpus.insert(d->device);
  timeline_->setXAxisByTime(comparison_->by_time);
  timeline_->setVisibleDevices(gpus);
  timeline_->setAnalysis(comparison_->merged);
  model_->setTable(std::make_shared<const Table>(comparison_->differences));
  table_->resizeColumnsToContents();
  fitTable();
}

void CompareView::setOverlay(std::shared_ptr<const TimelineOverview> overview, std::shared_ptr<const Table> differences,
                             const QString& note, bool by_time) {
  comparison_.reset();
  note_->setText(note.toHtmlEscaped());
  timeline_->setTitle(QString());
  std::set<int16_t> gpus;
  for (const auto& d : overview->devices)
    if (d.device != kCpuDevice && d.device != kCompareOffset + kCpuDevice) gpus.insert(static_cast<int16_t>(d.device));
  timeline_->setXAxisByTime(by_time);
  timeline_->setVisibleDevices(gpus);
  timeline_->setOverview(std::move(overview));
  model_->setTable(std::move(differences));
  table_->resizeColumnsToContents();
  fitTable();
}

void CompareView::fitTable() {
  // The table as tall as its rows (at most a third of the view): the chart gets the rest.
  const int rows = model_->rowCount();
  const int row_height = table_->verticalHeader()->defaultSectionSize();
  const int wanted = table_->horizontalHeader()->height() + std::max(1, rows) * row_height + 2 * table_->frameWidth() + 2;
  table_->setFixedHeight(std::min(wanted, std::max(row_height * 3, height() / 3)));
}

void CompareView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitTable();
}

}  // namespace sawtooth::views
