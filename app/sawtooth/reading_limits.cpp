#include "app/sawtooth/reading_limits.h"

#include <QDialogButtonBox>
#include <algorithm>
#include <QFormLayout>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "core/util/format_bytes.h"

namespace sawtooth::app {
namespace {

const QString kMemoryKey = QStringLiteral("limits/max_memory");
const QString kSecondsKey = QStringLiteral("limits/max_seconds");
const QString kOthersKey = QStringLiteral("limits/others");
const QString kWholeFileKey = QStringLiteral("limits/whole_file_budget");
constexpr uint64_t kDefaultWholeFileBudget = uint64_t{2} << 30;

QStringList lines(const QString& text) {
  QStringList out;
  for (const QString& l : text.split(QLatin1Char('\n')))
    if (!l.trimmed().isEmpty()) out << l.trimmed();
  return out;
}

// Applies the three fields to `limits`; the first problem, or empty.
QString apply(const QString& memory, const QString& seconds, const QString& others, ReadLimits& limits) {
  if (!memory.trimmed().isEmpty()) {
    const auto bytes = parseByteSize(memory.trimmed().toStdString());
    if (!bytes || *bytes == 0)
      return ReadingLimitsDialog::tr("Memory: \"%1\" is not a size (e.g. 8G, 1.5GiB, 512M).").arg(memory.trimmed());
    limits.max_memory = *bytes;
  }
  if (!seconds.trimmed().isEmpty()) {
    const Status st = setLimit(limits, QStringLiteral("seconds=%1").arg(seconds.trimmed()).toStdString());
    if (!st) return ReadingLimitsDialog::tr("Time: %1").arg(QString::fromStdString(st.error().message));
  }
  for (const QString& line : lines(others)) {
    const Status st = setLimit(limits, line.toStdString());
    if (!st) return ReadingLimitsDialog::tr("\"%1\": %2").arg(line, QString::fromStdString(st.error().message));
  }
  return {};
}

}  // namespace

ReadLimits readingLimitsFromSettings() {
  QSettings settings;
  ReadLimits limits;
  if (!apply(settings.value(kMemoryKey).toString(), settings.value(kSecondsKey).toString(),
             settings.value(kOthersKey).toString(), limits)
           .isEmpty())
    return ReadLimits{};  // a setting that no longer parses: the defaults, rather than half of it
  return limits;
}

uint64_t wholeFileBudgetFromSettings() {
  uint64_t budget = kDefaultWholeFileBudget;
  if (const auto saved = parseByteSize(QSettings().value(kWholeFileKey).toString().trimmed().toStdString()); saved && *saved > 0)
    budget = *saved;
  return std::min(budget, readingLimitsFromSettings().memoryLimit());
}

void saveWholeFileBudget(uint64_t bytes) { QSettings().setValue(kWholeFileKey, QString::number(bytes)); }

QString withAppRaiseHint(const QString& error) {
  if (!error.contains(QLatin1String("raise it with"))) return error;
  return error + ReadingLimitsDialog::tr(" — in the app: Settings ▸ Reading limits…");
}

ReadingLimitsDialog::ReadingLimitsDialog(QWidget* parent)
    : QDialog(parent),
      memory_(new QLineEdit(this)),
      seconds_(new QLineEdit(this)),
      others_(new QPlainTextEdit(this)),
      problem_(new QLabel(this)) {
  setWindowTitle(tr("Reading limits"));
  memory_->setPlaceholderText(
      tr("default: %1 (three quarters of this machine's memory)").arg(QString::fromStdString(formatBytes(static_cast<int64_t>(defaultMaxMemory())))));
  seconds_->setPlaceholderText(tr("default: %1 s").arg(ReadLimits{}.max_seconds));
  QStringList names;
  for (std::string_view n : limitNames()) names << QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
  others_->setPlaceholderText(tr("NAME=VALUE, one per line; names: %1").arg(names.join(QStringLiteral(", "))));
  others_->setFixedHeight(90);
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("QLabel { color: #b71c1c; }"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);

  auto* form = new QFormLayout;
  form->addRow(tr("Memory per file"), memory_);
  form->addRow(tr("Time per file (s)"), seconds_);
  form->addRow(tr("Other limits"), others_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Every file is read within these limits, so that a broken or hostile file costs "
                                  "bounded memory and time. Raise one when a real trace is refused for it."),
                               this));
  layout->addLayout(form);
  layout->addWidget(problem_);
  layout->addWidget(buttons);

  QSettings settings;
  memory_->setText(settings.value(kMemoryKey).toString());
  seconds_->setText(settings.value(kSecondsKey).toString());
  others_->setPlainText(settings.value(kOthersKey).toString());

  const auto update = [this, buttons] {
    const QString p = problem();
    problem_->setText(p);
    buttons->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
  };
  connect(memory_, &QLineEdit::textChanged, this, update);
  connect(seconds_, &QLineEdit::textChanged, this, update);
  connect(others_, &QPlainTextEdit::textChanged, this, update);
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
    memory_->clear();
    seconds_->clear();
    others_->clear();
  });
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    if (!problem().isEmpty()) return;
    save();
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  update();
}

QString ReadingLimitsDialog::problem() const {
  ReadLimits limits;
  return apply(memory_->text(), seconds_->text(), others_->toPlainText(), limits);
}

void ReadingLimitsDialog::save() const {
  QSettings settings;
  settings.setValue(kMemoryKey, memory_->text().trimmed());
  settings.setValue(kSecondsKey, seconds_->text().trimmed());
  settings.setValue(kOthersKey, lines(others_->toPlainText()).join(QLatin1Char('\n')));
}

}  // namespace sawtooth::app
