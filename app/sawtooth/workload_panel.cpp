#include "app/sawtooth/workload_panel.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QProcess>
#include <QSettings>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "app/sawtooth/app_logging.h"
#include "views/qt_format.h"

namespace sawtooth::app {
namespace {

using views::toQString;

QString problemWith(const recording::ParameterSpec& p, const QString& value) {
  const QByteArray utf8 = value.toUtf8();
  const Status st = recording::checkParameter(p, std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())));
  return st ? QString() : toQString(st.error().message);
}

}  // namespace

WorkloadPanel::WorkloadPanel(QString recorder, QString out_dir, QWidget* parent)
    : QWidget(parent),
      recorder_(std::move(recorder)),
      out_dir_(std::move(out_dir)),
      workloads_(new QComboBox(this)),
      description_(new QLabel(this)),
      device_(new QComboBox(this)),
      device_note_(new QLabel(this)),
      form_(new QFormLayout),
      form_host_(new QWidget(this)),
      capture_(new CaptureOptionsForm(this)),
      reset_(new QPushButton(tr("Reset to defaults"), this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)) {
  description_->setWordWrap(true);
  device_note_->setWordWrap(true);
  status_->setWordWrap(true);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long path wraps or clips, never widens
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  device_->setObjectName(QStringLiteral("device"));
  device_->addItem(tr("auto (a GPU when there is one)"), QStringLiteral("auto"));
  device_->addItem(tr("cuda (GPU)"), QStringLiteral("cuda"));
  device_->addItem(tr("cpu (smaller sizes)"), QStringLiteral("cpu"));
  form_host_->setLayout(form_);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  run_->setDefault(true);
  run_->setToolTip(tr("Record this workload (F5)"));
  cancel_->setToolTip(tr("Stop the recording; what it recorded so far still opens (Shift+F5)"));

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("<b>Workload</b>"), this));
  layout->addWidget(workloads_);
  layout->addWidget(description_);
  layout->addWidget(new QLabel(tr("<b>Device</b>"), this));
  layout->addWidget(device_);
  layout->addWidget(device_note_);
  layout->addWidget(new QLabel(tr("<b>Parameters</b>"), this));
  layout->addWidget(form_host_);
  layout->addWidget(new QLabel(tr("<b>Capture</b>"), this));
  layout->addWidget(capture_);
  layout->addWidget(reset_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  layout->addLayout(buttons);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addStretch();

  connect(workloads_, &QComboBox::currentIndexChanged, this, [this] { rebuildForm(); });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] { rebuildForm(); });
  connect(reset_, &QPushButton::clicked, this, &WorkloadPanel::resetParameters);
  connect(run_, &QPushButton::clicked, this, &WorkloadPanel::run);
  connect(cancel_, &QPushButton::clicked, this, &WorkloadPanel::cancel);

  if (!recorder_.isEmpty()) {
    runner_ = std::make_unique<RecorderRunner>(recorder_);
    connect(runner_.get(), &RecorderRunner::started, this, [this](const QString& m) { setStatus(tr("Running: %1").arg(m)); });
    connect(runner_.get(), &RecorderRunner::progress, this, [this](double fraction, const QString& text) {
      progress_->setValue(static_cast<int>(fraction * 1000));
      setStatus(text);
    });
    connect(runner_.get(), &RecorderRunner::finished, this,
            [this](RecorderRunner::Outcome outcome, const QString& path, const QString& message) {
              const bool ok = outcome == RecorderRunner::Outcome::Ok;
              progress_->setRange(0, 1000);
              if (ok) progress_->setValue(1000);
              setStatus(RecorderRunner::summary(outcome, ok ? QString() : message),
                        !ok && outcome != RecorderRunner::Outcome::Cancelled);
              updateButtons();
              emit recordingFinished(outcome, path, message);
            });
  }
  setStatus(recorder_.isEmpty() ? tr("sawtooth-record is not available: this build has no LibTorch. Traces can still be "
                                     "opened (File ▸ Open).")
                                : tr("Asking sawtooth-record for its workloads…"),
            recorder_.isEmpty());
  updateButtons();
}

WorkloadPanel::~WorkloadPanel() {
  // A --list still running must not report to a panel that is going away.
  if (catalog_process_) {
    catalog_process_->disconnect(this);
    catalog_process_->kill();
    catalog_process_->waitForFinished(2000);
  }
}

void WorkloadPanel::loadCatalog() {
  if (recorder_.isEmpty()) {
    emit catalogFailed(statusText());
    return;
  }
  auto* process = new QProcess(this);
  catalog_process_ = process;
  connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus status) {
    process->deleteLater();
    QString error;
    if (status == QProcess::NormalExit && code == 0) {
      const QByteArray out = process->readAllStandardOutput();
      auto list = recording::parseWorkloadList(std::string_view(out.constData(), static_cast<size_t>(out.size())));
      if (list) catalog_ = std::move(*list);
      else error = toQString(list.error().message);
    } else {
      error = tr("sawtooth-record --list failed: %1").arg(QString::fromUtf8(process->readAllStandardError()).trimmed());
    }
    if (!catalog_) {
      qCWarning(lcRecorder) << "no workload list:" << error;
      setStatus(error, true);
      updateButtons();
      emit catalogFailed(error);
      return;
    }
    const QSignalBlocker block(workloads_);
    workloads_->clear();
    for (const auto& w : catalog_->workloads) workloads_->addItem(toQString(w.title), toQString(w.name));
    const QString last = QSettings().value(QStringLiteral("workloads/last")).toString();
    if (const int i = workloads_->findData(last); i >= 0) workloads_->setCurrentIndex(i);
    updateDeviceChoices();
    rebuildForm();
    setStatus(tr("Ready."));
    updateButtons();
    emit catalogLoaded();
  });
  connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    process->deleteLater();
    const QString error = tr("could not start %1 (%2)").arg(recorder_, process->errorString());
    setStatus(error, true);
    emit catalogFailed(error);
  });
  process->start(recorder_, {QStringLiteral("--list"), QStringLiteral("--json")});
}

bool WorkloadPanel::usesGpu() const {
  const QByteArray d = device_->currentData().toString().toUtf8();
  const auto cuda = recording::resolveDevice(std::string_view(d.constData(), static_cast<size_t>(d.size())),
                                             catalog_ && catalog_->cuda_available);
  return cuda && *cuda;
}

bool WorkloadPanel::deviceSelectable(const QString& device) const {
  const QByteArray d = device.toUtf8();
  return recording::resolveDevice(std::string_view(d.constData(), static_cast<size_t>(d.size())),
                                  catalog_ && catalog_->cuda_available)
      .ok();
}

void WorkloadPanel::updateDeviceChoices() {
  // A choice this machine cannot run stays in the list, greyed, with the reason.
  auto* model = qobject_cast<QStandardItemModel*>(device_->model());
  for (int i = 0; i < device_->count(); ++i) {
    const QString d = device_->itemData(i).toString();
    const QByteArray utf8 = d.toUtf8();
    const auto ok = recording::resolveDevice(std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())),
                                             catalog_ && catalog_->cuda_available);
    if (QStandardItem* item = model ? model->item(i) : nullptr) {
      item->setEnabled(ok.ok());
      item->setToolTip(ok ? QString() : toQString(ok.error().message));
    }
  }
  if (!deviceSelectable(device_->currentData().toString())) setDevice(QStringLiteral("auto"));
}

void WorkloadPanel::rebuildForm() {
  while (form_->rowCount() > 0) form_->removeRow(0);
  editors_.clear();
  ranks_ = nullptr;
  if (!catalog_) return;
  const recording::WorkloadSpec* w = catalog_->find(currentWorkload().toStdString());
  if (!w) return;
  description_->setText(toQString(w->description));
  const QString gpu = toQString(catalog_->deviceDescription());
  if (catalog_->cuda_available) device_note_->setText(tr("GPU: %1").arg(gpu));
  else device_note_->setText(tr("No GPU was found on this machine: workloads run on the CPU at a smaller scale (the "
                                "seed's sizes need a GPU). The samples hold runs recorded on an H200, and GPT-2 on an H100."));
  const QString kind = usesGpu() ? QStringLiteral("gpu") : QStringLiteral("cpu");
  QSettings settings;
  if (w->distributed) {
    // One process per rank; on GPUs one GPU per rank.
    ranks_ = new QSpinBox(form_host_);
    const int most = std::max(1, recording::maxRanks(usesGpu(), catalog_->cuda_devices));
    ranks_->setRange(1, most);
    ranks_->setValue(std::min(2, most));
    ranks_->setToolTip(usesGpu() ? tr("processes, one per GPU (%1 on this machine)").arg(catalog_->cuda_devices)
                                 : tr("processes, one per rank, sharing the CPU cores (Gloo)"));
    form_->addRow(tr("ranks"), ranks_);
  }
  for (const recording::ParameterSpec& p : w->parameters) {
    const QString name = toQString(p.name);
    const QString fallback = toQString(p.defaultFor(usesGpu()));
    const QString value =
        settings.value(QStringLiteral("workloads/%1/%2/%3").arg(toQString(w->name), kind, name), fallback).toString();
    const QString tooltip = tr("%1 (default %2 on a GPU, %3 on the CPU)")
                                .arg(toQString(p.description), toQString(p.gpu_default), toQString(p.cpu_default));
    QWidget* editor;
    if (p.type == recording::kChoiceType) {
      auto* combo = new QComboBox(form_host_);
      for (const auto& c : p.choices) combo->addItem(toQString(c));
      combo->setCurrentText(value);
      editor = combo;
    } else {
      auto* line = new QLineEdit(value, form_host_);
      connect(line, &QLineEdit::textChanged, this, [line, p, name, tooltip](const QString& text) {
        const QString problem = problemWith(p, text.trimmed());
        line->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("QLineEdit { background: #fde0dc; }"));
        line->setToolTip(problem.isEmpty() ? tooltip : tr("%1: %2").arg(name, problem));
      });
      editor = line;
    }
    editor->setToolTip(tooltip);
    form_->addRow(name, editor);
    editors_.append({p, editor});
  }
}

QString WorkloadPanel::currentWorkload() const { return workloads_->currentData().toString(); }

void WorkloadPanel::selectWorkload(const QString& name) {
  if (const int i = workloads_->findData(name); i >= 0) workloads_->setCurrentIndex(i);
}

bool WorkloadPanel::setDevice(const QString& device) {
  const int i = device_->findData(device);
  if (i < 0 || !deviceSelectable(device)) return false;
  device_->setCurrentIndex(i);
  return true;
}

bool WorkloadPanel::setParameter(const QString& name, const QString& value) {
  for (auto& [p, editor] : editors_) {
    if (toQString(p.name) != name) continue;
    if (auto* combo = qobject_cast<QComboBox*>(editor)) combo->setCurrentText(value);
    else if (auto* line = qobject_cast<QLineEdit*>(editor)) line->setText(value);
    return true;
  }
  return false;
}

void WorkloadPanel::setRanks(int ranks) {
  if (ranks_) ranks_->setValue(ranks);
}

int WorkloadPanel::ranks() const { return ranks_ ? ranks_->value() : 1; }

QString WorkloadPanel::parameter(const QString& name) const {
  for (const auto& [p, editor] : editors_) {
    if (toQString(p.name) != name) continue;
    if (auto* combo = qobject_cast<QComboBox*>(editor)) return combo->currentText();
    if (auto* line = qobject_cast<QLineEdit*>(editor)) return line->text().trimmed();
  }
  return {};
}

void WorkloadPanel::resetParameters() {
  for (auto& [p, editor] : editors_) {
    const QString value = toQString(p.defaultFor(usesGpu()));
    if (auto* combo = qobject_cast<QComboBox*>(editor)) combo->setCurrentText(value);
    else if (auto* line = qobject_cast<QLineEdit*>(editor)) line->setText(value);
  }
  capture_->reset();
  // The defaults are acceptable: a complaint about the old values no longer applies.
  if (status_error_ && !isRunning()) setStatus(tr("Ready."));
}

QStringList WorkloadPanel::validationErrors() const {
  QStringList errors;
  for (const auto& [p, editor] : editors_)
    if (const QString problem = problemWith(p, parameter(toQString(p.name))); !problem.isEmpty())
      errors << QStringLiteral("%1: %2").arg(toQString(p.name), problem);
  return errors + capture_->validationErrors();
}

void WorkloadPanel::saveParameters() const {
  QSettings settings;
  settings.setValue(QStringLiteral("workloads/last"), currentWorkload());
  const QString kind = usesGpu() ? QStringLiteral("gpu") : QStringLiteral("cpu");
  for (const auto& [p, editor] : editors_)
    settings.setValue(QStringLiteral("workloads/%1/%2/%3").arg(currentWorkload(), kind, toQString(p.name)),
                      parameter(toQString(p.name)));
  capture_->save();
}

bool WorkloadPanel::run() {
  if (!runner_ || !catalog_) return false;
  if (runner_->isRunning()) {
    setStatus(tr("A recording is already running."), true);
    return false;
  }
  if (const QStringList errors = validationErrors(); !errors.isEmpty()) {
    setStatus(tr("Check the parameters: %1").arg(errors.join(QStringLiteral("; "))), true);
    return false;
  }
  const recording::WorkloadSpec* spec = catalog_->find(currentWorkload().toStdString());
  if (!spec) return false;
  if (const Status st = recording::checkRanks(*spec, ranks(), usesGpu(), catalog_->cuda_devices); !st) {
    setStatus(toQString(st.error().message), true);
    return false;
  }
  if (!QDir().mkpath(out_dir_)) {
    setStatus(tr("Cannot create %1 for the recording.").arg(out_dir_), true);
    return false;
  }
  saveParameters();
  RecorderRunner::Request request;
  request.workload = currentWorkload();
  request.device = device_->currentData().toString();
  request.ranks = ranks();
  for (const auto& [p, editor] : editors_) request.parameters.append({toQString(p.name), parameter(toQString(p.name))});
  request.capture = capture_->recorderArguments();
  request.out = QDir(out_dir_).filePath(
      QStringLiteral("%1-%2.sawtooth").arg(request.workload, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
  progress_->setValue(0);
  setStatus(tr("Starting sawtooth-record…"));
  runner_->start(request);
  updateButtons();
  emit recordingStarted(request.workload);
  return true;
}

bool WorkloadPanel::runProgram(RecorderRunner::Request request) {
  if (!runner_) {
    setStatus(tr("sawtooth-record is not available: this build has no recorder."), true);
    return false;
  }
  if (runner_->isRunning()) {
    setStatus(tr("A recording is already running."), true);
    return false;
  }
  if (request.command.isEmpty()) return false;
  if (!QDir().mkpath(out_dir_)) {
    setStatus(tr("Cannot create %1 for the recording.").arg(out_dir_), true);
    return false;
  }
  // Named after the script when there is one ("python train.py" → train), else the program.
  QString name = QFileInfo(request.command.first()).completeBaseName();
  for (const QString& arg : request.command.mid(1))
    if (arg.endsWith(QLatin1String(".py"))) {
      name = QFileInfo(arg).completeBaseName();
      break;
    }
  request.out = QDir(out_dir_).filePath(
      QStringLiteral("%1-%2.sawtooth").arg(name, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
  progress_->setRange(0, 0);  // a program has no step count: busy until it ends
  setStatus(tr("Recording %1…").arg(request.command.join(QLatin1Char(' '))));
  runner_->start(request);
  updateButtons();
  emit recordingStarted(name);
  return true;
}

void WorkloadPanel::cancel() {
  if (!isRunning()) return;
  setStatus(tr("Cancelling: the recorder closes its trace…"));
  runner_->cancel();
}

void WorkloadPanel::setStatus(const QString& text, bool error) {
  status_error_ = error;
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #b71c1c; }") : QString());
}

void WorkloadPanel::updateButtons() {
  const bool running = isRunning();
  run_->setEnabled(catalog_.has_value() && !running);
  cancel_->setEnabled(running);
  reset_->setEnabled(catalog_.has_value() && !running);
  workloads_->setEnabled(!running);
  device_->setEnabled(!running);
  form_host_->setEnabled(!running);
  capture_->setEnabled(!running);
}

}  // namespace sawtooth::app
