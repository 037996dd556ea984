#include "views/ladder_view.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/analysis/ladder_table.h"
#include "views/qt_format.h"
#include "views/table_model.h"

namespace sawtooth::views {

LadderView::LadderView(QWidget* parent)
    : QWidget(parent),
      body_(new QLabel(this)),
      sources_(new QComboBox(this)),
      memory_gb_(new QDoubleSpinBox(this)),
      devices_(new QSpinBox(this)),
      link_gb_(new QDoubleSpinBox(this)),
      summary_(new QLabel(this)),
      table_(new QTableView(this)),
      model_(new TableModel(this)),
      details_(new QTextBrowser(this)) {
  body_->setWordWrap(true);
  body_->setTextFormat(Qt::RichText);
  body_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  body_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  connect(body_, &QLabel::linkActivated, this, [this](const QString& link) {
    const QStringList parts = link.split('/');
    emit chartRequested(parts.value(0), parts.value(1));
  });
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(body_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);

  auto* program = new QGroupBox(tr("The ladder for a recording: predicted from it, measured where a run of the rung is open"), this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Recording:"), program));
  sources_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  sources_->setMinimumContentsLength(24);
  controls->addWidget(sources_, 1);
  controls->addWidget(new QLabel(tr("Device memory:"), program));
  memory_gb_->setRange(0, 100000);
  memory_gb_->setDecimals(1);
  memory_gb_->setSuffix(tr(" GB"));
  memory_gb_->setSpecialValueText(tr("the recorded device's"));
  memory_gb_->setToolTip(tr("Judge what fits against a device of this size (decimal GB); 0: the recorded device's"));
  memory_gb_->setKeyboardTracking(false);
  controls->addWidget(memory_gb_);
  controls->addWidget(new QLabel(tr("Sharded over:"), program));
  devices_->setRange(1, 4096);  // 1 stands for "the run's": sharding needs two
  devices_->setSpecialValueText(tr("the run's devices, or 2"));
  devices_->setSuffix(tr(" devices"));
  devices_->setToolTip(tr("The devices the sharding rungs (ZeRO-1, ZeRO-2, full sharding) spread over"));
  devices_->setKeyboardTracking(false);
  controls->addWidget(devices_);
  controls->addWidget(new QLabel(tr("Link:"), program));
  link_gb_->setRange(0, 100000);
  link_gb_->setDecimals(1);
  link_gb_->setSuffix(tr(" GB/s"));
  link_gb_->setSpecialValueText(tr("from the device's name"));
  link_gb_->setToolTip(tr("The bus bandwidth a ring all-reduce reaches between the devices (NCCL's busbw), for the "
                          "sharding rungs' step time from a one-device recording; 0: read from the recorded device's "
                          "name where known"));
  link_gb_->setKeyboardTracking(false);
  controls->addWidget(link_gb_);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  details_->setOpenLinks(false);
  auto* split = new QSplitter(Qt::Vertical, program);
  split->addWidget(table_);
  split->addWidget(details_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* program_layout = new QVBoxLayout(program);
  program_layout->addLayout(controls);
  program_layout->addWidget(summary_);
  program_layout->addWidget(split, 1);

  auto* outer = new QSplitter(Qt::Vertical, this);
  outer->addWidget(scroll);
  outer->addWidget(program);
  outer->setStretchFactor(0, 1);
  outer->setStretchFactor(1, 3);
  outer->setSizes({260, 700});  // the seed's five rungs in view above the recording's ladder
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(outer);

  connect(sources_, &QComboBox::currentIndexChanged, this, [this] { request(); });
  connect(memory_gb_, &QDoubleSpinBox::valueChanged, this, [this] { request(); });
  connect(devices_, &QSpinBox::valueChanged, this, [this] { request(); });
  connect(link_gb_, &QDoubleSpinBox::valueChanged, this, [this] { request(); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { showDetails(current.row()); });
  setRungs({});
  setReport(nullptr);
}

void LadderView::setRungs(std::vector<LadderRung> rungs) {
  rungs_ = std::move(rungs);
  QString html = tr("<h2>The ladder, measured here</h2>"
                    "<p>The seed chapter's ladder of remedies, each rung with the numbers of the recordings open "
                    "in this window. Only measured numbers; a rung without a recording says so.</p><table cellspacing=8>");
  for (const LadderRung& r : rungs_) {
    QString finding = toQString(r.finding).toHtmlEscaped();
    if (r.measured)
      finding += QStringLiteral(" &nbsp;<a href=\"%1/%2\">show the chart</a>").arg(toQString(r.workload), toQString(r.run));
    html += QStringLiteral("<tr><td valign=top><b>%1</b></td><td valign=top>→ %2</td><td valign=top%3>%4</td></tr>")
                .arg(toQString(r.symptom).toHtmlEscaped(), toQString(r.remedy).toHtmlEscaped(),
                     r.measured ? QString() : QStringLiteral(" style=\"color:#777\""), finding);
  }
  html += QStringLiteral("</table>");
  body_->setText(html);
}

QString LadderView::text() const {
  QStringList lines;
  for (const LadderRung& r : rungs_)
    lines << QStringLiteral("%1 → %2: %3").arg(toQString(r.symptom), toQString(r.remedy), toQString(r.finding));
  return lines.join('\n');
}

void LadderView::setSources(const QStringList& names) {
  const QString current = sources_->currentText();
  {
    const QSignalBlocker block(sources_);
    sources_->clear();
    sources_->addItems(names);
    const int keep = names.indexOf(current);
    sources_->setCurrentIndex(keep >= 0 ? keep : (names.isEmpty() ? -1 : 0));
  }
  if (names.isEmpty() || !report_) setReport(nullptr);
}

int LadderView::source() const { return sources_->currentIndex(); }

int64_t LadderView::deviceMemory() const { return static_cast<int64_t>(memory_gb_->value() * 1e9); }

void LadderView::setDeviceMemory(int64_t bytes) { memory_gb_->setValue(static_cast<double>(bytes) / 1e9); }

int LadderView::shardDevices() const { return devices_->value() < 2 ? 0 : devices_->value(); }

void LadderView::setShardDevices(int devices) { devices_->setValue(devices < 2 ? 1 : devices); }

double LadderView::linkBandwidth() const { return link_gb_->value(); }

void LadderView::setLinkBandwidth(double gb_per_s) { link_gb_->setValue(gb_per_s); }

void LadderView::request() {
  if (sources_->currentIndex() >= 0)
    emit programLadderRequested(sources_->currentIndex(), deviceMemory(), shardDevices(), linkBandwidth());
}

void LadderView::setReport(std::shared_ptr<const LadderReport> report) {
  report_ = std::move(report);
  if (!report_) {
    model_->setTable(std::make_shared<Table>());
    summary_->setText(sources_->count() == 0 ? tr("Open a recording to see its ladder.") : tr("Predicting…"));
    details_->clear();
    return;
  }
  model_->setTable(std::make_shared<Table>(ladderTable(*report_)));
  QStringList lines;
  for (const std::string& line : ladderSummary(*report_)) lines << toQString(line);
  summary_->setText(lines.join('\n'));
  table_->resizeColumnsToContents();
  selectRow(0);
}

void LadderView::setReportError(const QString& message) {
  report_.reset();
  model_->setTable(std::make_shared<Table>());
  summary_->setText(tr("No ladder for this recording: %1").arg(message));
  details_->clear();
}

void LadderView::selectRow(int row) {
  if (!report_ || row < 0 || row >= static_cast<int>(report_->rows.size())) return;
  table_->selectRow(row);
  showDetails(row);
}

void LadderView::showDetails(int row) {
  if (!report_ || row < 0) {
    details_->clear();
    return;
  }
  QStringList lines;
  for (const std::string& line : ladderRowDetails(*report_, static_cast<size_t>(row))) lines << toQString(line);
  details_->setPlainText(lines.join('\n'));
}

QString LadderView::programText() const { return summary_->text() + QLatin1Char('\n') + details_->toPlainText(); }

}  // namespace sawtooth::views
