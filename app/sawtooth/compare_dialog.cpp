#include "app/sawtooth/compare_dialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSettings>

namespace sawtooth::app {
namespace {

constexpr int kTabRole = Qt::UserRole;
constexpr int kPathRole = Qt::UserRole + 1;

}  // namespace

CompareDialog::CompareDialog(const QList<QPair<views::TraceTab*, QString>>& open, QWidget* parent)
    : QDialog(parent), buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setWindowTitle(tr("Compare two traces"));
  auto* form = new QFormLayout(this);
  for (int s = 0; s < 2; ++s) {
    auto* combo = new QComboBox(this);
    combo->setMinimumContentsLength(28);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    for (const auto& [tab, name] : open) combo->addItem(name, QVariant::fromValue<QObject*>(tab));
    auto* browse = new QPushButton(tr("Browse…"), this);
    browse->setToolTip(tr("Compare with a file that is not open"));
    connect(browse, &QPushButton::clicked, this, [this, s] { this->browse(s); });
    auto* row = new QHBoxLayout;
    row->addWidget(combo, 1);
    row->addWidget(browse);
    form->addRow(s == 0 ? tr("A") : tr("B"), row);
    sides_[s] = combo;
  }
  if (open.size() > 1) sides_[1]->setCurrentIndex(1);
  form->addRow(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  for (QComboBox* c : sides_) connect(c, &QComboBox::currentIndexChanged, this, &CompareDialog::updateState);
  updateState();
}

void CompareDialog::browse(int side) {
  QSettings settings;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Compare with"), settings.value("lastDirectory").toString());
  if (!path.isEmpty()) setFile(side, path);
}

void CompareDialog::setFile(int side, const QString& path) {
  QComboBox* combo = sides_[side];
  const QString absolute = QFileInfo(path).absoluteFilePath();
  int at = -1;
  for (int i = 0; i < combo->count(); ++i)
    if (combo->itemData(i, kPathRole).toString() == absolute) at = i;
  if (at < 0) {
    combo->addItem(QFileInfo(path).fileName(), QVariant());
    at = combo->count() - 1;
    combo->setItemData(at, absolute, kPathRole);
    combo->setItemData(at, absolute, Qt::ToolTipRole);
  }
  combo->setCurrentIndex(at);
  updateState();
}

CompareDialog::Side CompareDialog::side(int side) const {
  const QComboBox* combo = sides_[side];
  Side out;
  out.tab = qobject_cast<views::TraceTab*>(combo->currentData(kTabRole).value<QObject*>());
  out.path = combo->currentData(kPathRole).toString();
  return out;
}

bool CompareDialog::acceptable() const {
  const Side a = side(0), b = side(1);
  const bool a_set = a.tab || !a.path.isEmpty(), b_set = b.tab || !b.path.isEmpty();
  return a_set && b_set && (a.tab != b.tab || a.path != b.path);
}

void CompareDialog::updateState() { buttons_->button(QDialogButtonBox::Ok)->setEnabled(acceptable()); }

}  // namespace sawtooth::app
