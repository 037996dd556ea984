#include "app/sawtooth/start_page.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace sawtooth::app {
namespace {

constexpr int kPathRole = Qt::UserRole;
constexpr int kTitleRole = Qt::UserRole + 1;

QListWidget* fileList(QWidget* parent) {
  auto* list = new QListWidget(parent);
  list->setSelectionMode(QAbstractItemView::SingleSelection);
  list->setUniformItemSizes(true);
  list->setTextElideMode(Qt::ElideMiddle);
  list->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
  return list;
}

}  // namespace

StartPage::StartPage(QWidget* parent)
    : QWidget(parent),
      recent_(fileList(this)),
      no_recent_(new QLabel(tr("No recent files yet."), this)),
      samples_(fileList(this)),
      all_samples_(new QPushButton(tr("Open all samples"), this)) {
  setObjectName(QStringLiteral("startPage"));
  auto* title = new QLabel(tr("<h2>Sawtooth</h2>"), this);
  auto* intro = new QLabel(tr("Open a PyTorch memory snapshot, a torch.profiler trace, a JAX memory profile or a "
                              ".sawtooth recording (or drop one on the window); record a program of yours; or pick a "
                              "workload on the left and press Run (F5)."),
                           this);
  intro->setWordWrap(true);
  intro->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* open = new QPushButton(tr("Open a trace…"), this);
  open->setToolTip(tr("Ctrl+O"));
  auto* record = new QPushButton(tr("Record a program…"), this);
  record->setToolTip(tr("Ctrl+Shift+R"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(record);
  buttons->addStretch();
  no_recent_->setEnabled(false);

  auto* lists = new QHBoxLayout;
  auto* recent_column = new QVBoxLayout;
  recent_column->addWidget(new QLabel(tr("<b>Recent files</b>"), this));
  recent_column->addWidget(recent_, 1);
  recent_column->addWidget(no_recent_);
  auto* sample_column = new QVBoxLayout;
  sample_column->addWidget(new QLabel(tr("<b>Samples recorded on a GPU</b>"), this));
  sample_column->addWidget(samples_, 1);
  sample_column->addWidget(all_samples_, 0, Qt::AlignLeft);
  lists->addLayout(recent_column, 3);
  lists->addLayout(sample_column, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(24, 16, 24, 16);
  layout->addWidget(title);
  layout->addWidget(intro);
  layout->addLayout(buttons);
  layout->addSpacing(8);
  layout->addLayout(lists, 1);

  connect(open, &QPushButton::clicked, this, &StartPage::openDialogRequested);
  connect(record, &QPushButton::clicked, this, &StartPage::recordProgramRequested);
  connect(all_samples_, &QPushButton::clicked, this, &StartPage::openAllSamplesRequested);
  for (QListWidget* list : {recent_, samples_})
    connect(list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
      emit openRequested(item->data(kPathRole).toString(), item->data(kTitleRole).toString());
    });
}

void StartPage::setRecentFiles(const QStringList& files) {
  recent_->clear();
  for (const QString& f : files) {
    auto* item = new QListWidgetItem(
        QStringLiteral("%1 — %2").arg(QFileInfo(f).fileName(), QFileInfo(f).absolutePath()), recent_);
    item->setData(kPathRole, f);
    item->setToolTip(f);
  }
  recent_->setVisible(!files.isEmpty());
  no_recent_->setVisible(files.isEmpty());
  if (!files.isEmpty()) recent_->setCurrentRow(0);
}

void StartPage::setSamples(const QList<QPair<QString, QString>>& samples) {
  samples_->clear();
  for (const auto& [name, path] : samples) {
    auto* item = new QListWidgetItem(name, samples_);
    item->setData(kPathRole, path);
    item->setData(kTitleRole, tr("Sample: %1").arg(name));
    item->setToolTip(path);
  }
  all_samples_->setEnabled(!samples.isEmpty());
}

}  // namespace sawtooth::app
