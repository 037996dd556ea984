#include "views/diff_sites_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHeaderView>
#include <QHelpEvent>
#include <QSplitter>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include "core/analysis/short_labels.h"
#include "views/chart_export.h"
#include "views/qt_format.h"
#include "views/timeline_style.h"

namespace sawtooth::views {
namespace {

constexpr double kBytesPerUnit = 1e6;
constexpr size_t kLabelChars = 40;
constexpr int kSiteColumn = 0;    // diffSitesTable's columns
constexpr int kChangeColumn = 4;

QString shortLabel(const DiffRow& r) {
  return QStringLiteral("%1 · %2").arg(toQString(compactSiteLabel(r.site, kLabelChars)),
                                       toQString(name(r.category)).replace('_', ' '));
}

}  // namespace

DivergingBarChart::DivergingBarChart(QWidget* parent) : QChartView(parent) {
  installThemedChart(this);
  setMinimumHeight(260);
}

void DivergingBarChart::setDiff(std::shared_ptr<const CallSiteDiff> diff) {
  diff_ = diff ? std::shared_ptr<const TraceDiff>(diff, &diff->diff) : nullptr;
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  sites_.clear();
  rows_.clear();
  hovered_ = -1;
  series_ = nullptr;
  site_axis_ = nullptr;
  grew_ = shrank_ = nullptr;
  if (!diff_) return;
  c->setTitle(tr("Live bytes at the peak by call site: B (%1) against A (%2)")
                  .arg(toQString(diff_->b.file).section('/', -1), toQString(diff_->a.file).section('/', -1)));
  rows_ = diff->top_rows;
  series_ = new QHorizontalStackedBarSeries(c);
  grew_ = new QBarSet(tr("grew"), series_);
  shrank_ = new QBarSet(tr("shrank"), series_);
  grew_->setColor(growthColor());
  shrank_->setColor(shrinkColor());
  QStringList categories;
  double extent = 1;
  // A horizontal bar chart draws its first category at the bottom: add the largest growth last.
  for (auto it = rows_.rbegin(); it != rows_.rend(); ++it) {
    const DiffRow& r = diff_->rows[*it];
    const double g = static_cast<double>(r.growth()) / kBytesPerUnit;
    grew_->append(g > 0 ? g : 0);
    shrank_->append(g < 0 ? g : 0);
    extent = std::max(extent, std::abs(g));
    QString label = shortLabel(r);
    while (categories.contains(label)) label += QLatin1Char(' ');  // a category axis needs distinct names
    categories << label;
  }
  for (auto it = categories.rbegin(); it != categories.rend(); ++it) sites_ << it->trimmed();
  series_->append(grew_);
  series_->append(shrank_);
  series_->setBarWidth(0.7);
  c->addSeries(series_);
  auto* y = new QBarCategoryAxis(c);
  site_axis_ = y;
  y->append(categories);
  // The labels are short already (compactSiteLabel): drawn whole, never cut to "…".
  y->setTruncateLabels(false);
  auto* x = new QValueAxis(c);
  x->setRange(-extent * 1.05, extent * 1.05);
  x->applyNiceNumbers();
  x->setTitleText(tr("change of live bytes at the peak (MB)"));
  x->setLabelFormat(QStringLiteral("%.0f"));
  c->addAxis(y, Qt::AlignLeft);
  c->addAxis(x, Qt::AlignBottom);
  series_->attachAxis(y);
  series_->attachAxis(x);
  // The bar under the pointer; its tooltip is shown when the pointer rests (viewportEvent).
  connect(series_, &QAbstractBarSeries::hovered, this, [this](bool status, int index, QBarSet*) {
    hovered_ = status ? static_cast<int>(rows_.size()) - 1 - index : -1;
    if (!status) QToolTip::hideText();
  });
}

bool DivergingBarChart::viewportEvent(QEvent* event) {
  // The scene answers a resting pointer's tooltip request by hiding any tooltip (the bars have none
  // of their own): the bar's description is shown here instead.
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    if (hovered_ >= 0) QToolTip::showText(help->globalPos(), describe(hovered_), this);
    else QToolTip::hideText();
    return true;
  }
  return QChartView::viewportEvent(event);
}

QString DivergingBarChart::describe(int site) const {
  if (!diff_ || site < 0 || site >= static_cast<int>(rows_.size())) return {};
  const DiffRow& r = diff_->rows[rows_[static_cast<size_t>(site)]];
  QString text = tr("<b>%1</b> (%2)<br>A at its peak: %3 in %L4 allocations<br>B at its peak: %5 in %L6 allocations<br>"
                    "change: %7")
                     .arg(toQString(r.site).toHtmlEscaped(), toQString(name(r.category)).replace('_', ' '), bytesText(r.a_bytes))
                     .arg(r.a_count)
                     .arg(bytesText(r.b_bytes))
                     .arg(r.b_count)
                     .arg((r.growth() > 0 ? QStringLiteral("+") : QString()) + bytesText(r.growth()));
  if (diff_->totals_known)
    text += tr("<br>allocated in all: %1 → %2").arg(bytesText(r.a_total_allocated), bytesText(r.b_total_allocated));
  return text;
}

DiffSitesView::DiffSitesView(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel(this)),
      chart_(new DivergingBarChart(this)),
      model_(new TableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)) {
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(TableModel::RawRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(kChangeColumn, Qt::DescendingOrder);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
}

void DiffSitesView::setDiff(std::shared_ptr<const CallSiteDiff> diff) {
  diff_ = std::move(diff);
  QStringList lines;
  if (diff_)
    for (const std::string& line : diff_->diff.change.lines) lines << toQString(line).toHtmlEscaped();
  summary_->setText(lines.join(QStringLiteral("<br>")));
  chart_->setDiff(diff_);
  model_->setTable(diff_ ? std::shared_ptr<const Table>(diff_, &diff_->table) : nullptr);
  table_->resizeColumnsToContents();
  table_->setColumnWidth(kSiteColumn, std::min(table_->columnWidth(kSiteColumn), 480));
}

std::shared_ptr<const Table> DiffSitesView::tableData() const {
  return diff_ ? std::shared_ptr<const Table>(diff_, &diff_->table) : nullptr;
}

void DiffSitesView::setMessage(const QString& text) {
  setDiff(nullptr);
  summary_->setText(text.toHtmlEscaped());
}


}  // namespace sawtooth::views
