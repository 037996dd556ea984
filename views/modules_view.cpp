#include "views/modules_view.h"

#include <QHeaderView>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "views/qt_format.h"
#include "views/timeline_style.h"

namespace sawtooth::views {
namespace {
constexpr int kModuleColumn = 0;  // modulesTable's columns
}  // namespace

ModulesView::ModulesView(QWidget* parent)
    : QWidget(parent),
      headline_(new QLabel(this)),
      record_again_(new QPushButton(tr("Record again with modules…"), this)),
      icicle_(new FlameGraphWidget),
      model_(new TableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)) {
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  record_again_->setVisible(false);
  record_again_->setToolTip(tr("Runs the recorded command again under sawtooth-record with module tracking on"));
  connect(record_again_, &QPushButton::clicked, this, [this] {
    if (!modules_) return;
    const ModuleMemory::Program& program = modules_->memory.record_again;
    QStringList argv, environment;
    for (const std::string& a : program.argv) argv << toQString(a);
    for (const std::string& e : program.environment) environment << toQString(e);
    if (!argv.isEmpty()) emit recordAgainWithModules(argv, toQString(program.cwd), environment);
  });
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(TableModel::RawRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const uint32_t node = nodeOfRow(proxy_->mapToSource(index).row());
    if (node != UINT32_MAX) icicle_->zoomTo(node);
  });
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(icicle_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* split = new QSplitter(Qt::Vertical, this);
  panes_ = split;
  split->addWidget(scroll);
  split->addWidget(table_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(headline_);
  layout->addWidget(record_again_, 0, Qt::AlignLeft);
  layout->addWidget(split, 1);
}

void ModulesView::setModules(std::shared_ptr<const ModulesAt> modules) {
  modules_ = std::move(modules);
  if (!modules_) {
    setMessage({});
    return;
  }
  if (!modules_->memory.unavailable.empty()) {
    const QString why = toQString(modules_->memory.unavailable);
    auto kept = modules_;
    setMessage(tr("No modules to show: %1").arg(why));
    modules_ = std::move(kept);  // for the button: the program to record again
    record_again_->setVisible(!modules_->memory.record_again.argv.empty());
    return;
  }
  QString headline = toQString(modules_->memory.headline);
  if (!modules_->memory.costs_known && !modules_->memory.costs_unknown.empty())
    headline += tr(" (no forward and backward costs: %1)").arg(toQString(modules_->memory.costs_unknown));
  else if (!modules_->memory.costs_scope.empty())
    headline += tr("; forward and backward costs over %1").arg(toQString(modules_->memory.costs_scope));
  headline_->setText(headline +
                     tr(" — click a module to zoom in, double-click to zoom out; double-click a row to find it"));
  panes_->setVisible(true);
  icicle_->setGraph(std::shared_ptr<const FlameGraph>(modules_, &modules_->icicle.graph));
  std::vector<QColor> colours(modules_->icicle.category.size());
  for (size_t n = 0; n < colours.size(); ++n)
    if (const auto& category = modules_->icicle.category[n]) colours[n] = categoryColor(*category);
  icicle_->setNodeColours(std::move(colours));
  model_->setTable(tableData());
  table_->sortByColumn(-1, Qt::AscendingOrder);  // the tree's order: a parent above its submodules
  table_->resizeColumnsToContents();
  table_->setColumnWidth(kModuleColumn, std::min(table_->columnWidth(kModuleColumn), 420));
}

void ModulesView::setMessage(const QString& text) {
  modules_.reset();
  record_again_->setVisible(false);
  panes_->setVisible(false);
  headline_->setText(text);
  icicle_->setGraph(nullptr);
  model_->setTable(nullptr);
}

std::shared_ptr<const Table> ModulesView::tableData() const {
  if (!modules_ || !modules_->memory.unavailable.empty()) return nullptr;
  return std::shared_ptr<const Table>(modules_, &modules_->table);
}

PaintedWidget ModulesView::picture() const { return {icicle_, icicle_->size()}; }

uint32_t ModulesView::nodeOfRow(int row) const {
  if (!modules_ || row < 0) return UINT32_MAX;
  const std::vector<uint32_t>& rows = modules_->icicle.row;
  const std::vector<std::optional<Category>>& categories = modules_->icicle.category;
  for (uint32_t n = 0; n < rows.size(); ++n)
    if (rows[n] == static_cast<uint32_t>(row) && !categories[n]) return n;
  return UINT32_MAX;
}

}  // namespace sawtooth::views
