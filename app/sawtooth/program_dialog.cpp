#include "app/sawtooth/program_dialog.h"

#include <algorithm>

#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QVBoxLayout>

namespace sawtooth::app {
namespace {

const QString kRecentKey = QStringLiteral("programs/recent");
const QString kFolderKey = QStringLiteral("programs/folder");
const QString kEnvironmentKey = QStringLiteral("programs/environment");
const QString kStacksKey = QStringLiteral("programs/stacks");
const QString kCpuKey = QStringLiteral("programs/cpu");
const QString kKernelsKey = QStringLiteral("programs/kernels");
const QString kModulesKey = QStringLiteral("programs/modules");
constexpr int kRecentKept = 10;

QStringList environmentLines(const QString& text) {
  QStringList lines;
  for (const QString& line : text.split(QLatin1Char('\n'))) {
    const QString trimmed = line.trimmed();
    if (!trimmed.isEmpty() && !trimmed.startsWith(QLatin1Char('#'))) lines << trimmed;
  }
  return lines;
}

}  // namespace

ProgramDialog::ProgramDialog(QWidget* parent)
    : QDialog(parent),
      command_(new QComboBox(this)),
      folder_(new QLineEdit(this)),
      environment_(new QPlainTextEdit(this)),
      stacks_(new QComboBox(this)),
      cpu_(new QComboBox(this)),
      kernels_(new QCheckBox(tr("Record each kernel launch (slower)"), this)),
      modules_(new QCheckBox(tr("Record which torch.nn.Module allocated each byte"), this)),
      capture_(new CaptureOptionsForm(this, QStringLiteral("programs/capture"))),
      problem_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setWindowTitle(tr("Record a program"));
  command_->setEditable(true);
  command_->setInsertPolicy(QComboBox::NoInsert);
  command_->addItems(recentCommands());
  command_->lineEdit()->setPlaceholderText(tr("python train.py --epochs 1   (or torchrun …, or a LibTorch binary)"));
  command_->setMinimumWidth(480);
  environment_->setPlaceholderText(tr("KEY=VALUE, one per line (e.g. PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)"));
  environment_->setTabChangesFocus(true);
  environment_->setFixedHeight(80);
  stacks_->addItems({QStringLiteral("python"), QStringLiteral("none")});
  stacks_->setToolTip(tr("Python stacks of each CUDA allocation (none: the least overhead)"));
  cpu_->addItems({QStringLiteral("auto"), QStringLiteral("on"), QStringLiteral("off")});
  cpu_->setToolTip(tr("CPU allocations: auto records them until the program uses CUDA (not at all on a machine with "
                      "a GPU), on, off"));
  kernels_->setToolTip(tr("Kernel records through CUPTI, which instruments each launch: +4 to +16 % step time on a "
                          "launch-bound training loop (GPT-2 on an H200). Driver allocations and device memory are recorded either way."));
  modules_->setToolTip(tr("The Modules view: the program's Module.__call__ is wrapped while it runs. It cost 0.4 to 1 % "
                          "of a GPT-2 step with Python stacks, 0.6 to 1.7 % without; off by default."));
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("QLabel { color: #b71c1c; }"));
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Record"));

  auto* browse = new QPushButton(tr("Browse…"), this);
  auto* folder_row = new QHBoxLayout;
  folder_row->addWidget(folder_, 1);
  folder_row->addWidget(browse);
  auto* form = new QFormLayout;
  form->addRow(tr("Command"), command_);
  form->addRow(tr("Folder"), folder_row);
  form->addRow(tr("Environment"), environment_);
  form->addRow(tr("Python stacks"), stacks_);
  form->addRow(tr("CPU allocations"), cpu_);
  form->addRow(tr("Kernels"), kernels_);
  form->addRow(tr("Modules"), modules_);
  form->addRow(tr("Capture"), capture_);
  capture_->setSampleIntervalRange(5, 60'000);
  capture_->setToolTip(tr("A program's step ends when its optimizer.step() returns"));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(problem_);
  layout->addWidget(buttons_);

  QSettings settings;
  folder_->setText(settings.value(kFolderKey, QDir::currentPath()).toString());
  environment_->setPlainText(settings.value(kEnvironmentKey).toString());
  stacks_->setCurrentText(settings.value(kStacksKey, QStringLiteral("python")).toString());
  cpu_->setCurrentText(settings.value(kCpuKey, QStringLiteral("auto")).toString());
  kernels_->setChecked(settings.value(kKernelsKey, false).toBool());
  modules_->setChecked(settings.value(kModulesKey, false).toBool());

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("The program's folder"), folder_->text());
    if (!dir.isEmpty()) folder_->setText(dir);
  });
  connect(command_, &QComboBox::currentTextChanged, this, &ProgramDialog::updateState);
  connect(folder_, &QLineEdit::textChanged, this, &ProgramDialog::updateState);
  connect(environment_, &QPlainTextEdit::textChanged, this, &ProgramDialog::updateState);
  connect(capture_, &CaptureOptionsForm::changed, this, &ProgramDialog::updateState);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (!problem().isEmpty()) return;
    remember();
    accept();
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  updateState();
}

QString ProgramDialog::problem() const {
  const QString line = command_->currentText().trimmed();
  if (line.isEmpty()) return tr("Type the command that runs the program.");
  if (QProcess::splitCommand(line).isEmpty()) return tr("The command line has no program in it (check its quotes).");
  const QString folder = folder_->text().trimmed();
  if (!folder.isEmpty() && !QDir(folder).exists()) return tr("The folder %1 does not exist.").arg(folder);
  static const QRegularExpression entry(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*=.*$"));
  for (const QString& e : environmentLines(environment_->toPlainText()))
    if (!entry.match(e).hasMatch()) return tr("Environment: \"%1\" is not KEY=VALUE.").arg(e);
  if (const QStringList errors = capture_->validationErrors(); !errors.isEmpty()) return errors.join(QLatin1Char('\n'));
  return {};
}

void ProgramDialog::updateState() {
  const QString p = problem();
  problem_->setText(p);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
}

RecorderRunner::Request ProgramDialog::request() const {
  RecorderRunner::Request r;
  r.command = QProcess::splitCommand(command_->currentText().trimmed());
  r.working_dir = folder_->text().trimmed();
  r.environment = environmentLines(environment_->toPlainText());
  r.program_options = {QStringLiteral("--stacks"),  stacks_->currentText(),
                       QStringLiteral("--cpu"),     cpu_->currentText(),
                       QStringLiteral("--kernels"), kernels_->isChecked() ? QStringLiteral("on") : QStringLiteral("off"),
                       QStringLiteral("--modules"), modules_->isChecked() ? QStringLiteral("on") : QStringLiteral("off")};
  r.program_options += capture_->recorderArguments();
  return r;
}

void ProgramDialog::remember() const {
  QSettings settings;
  QStringList recent = recentCommands();
  const QString line = command_->currentText().trimmed();
  recent.removeAll(line);
  recent.prepend(line);
  while (recent.size() > kRecentKept) recent.removeLast();
  settings.setValue(kRecentKey, recent);
  settings.setValue(kFolderKey, folder_->text().trimmed());
  settings.setValue(kEnvironmentKey, environment_->toPlainText());
  settings.setValue(kStacksKey, stacks_->currentText());
  settings.setValue(kCpuKey, cpu_->currentText());
  settings.setValue(kKernelsKey, kernels_->isChecked());
  settings.setValue(kModulesKey, modules_->isChecked());
  capture_->save();
}

QString ProgramDialog::commandLineOf(const QStringList& argv) {
  QStringList quoted;
  for (const QString& a : argv) {
    const bool plain = !a.isEmpty() && std::none_of(a.begin(), a.end(), [](QChar c) { return c.isSpace() || c == u'"'; });
    // splitCommand's rules: a quoted argument keeps its spaces, and a literal quote is three.
    quoted << (plain ? a : QLatin1Char('"') + QString(a).replace(QLatin1Char('"'), QStringLiteral("\"\"\"")) + QLatin1Char('"'));
  }
  return quoted.join(QLatin1Char(' '));
}

QStringList ProgramDialog::recentCommands() { return QSettings().value(kRecentKey).toStringList(); }

}  // namespace sawtooth::app
