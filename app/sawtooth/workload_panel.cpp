#include "app/sawtooth/workload_panel.h"

#include <QDateTime>
#include <QDir>
#include <QHBoxLayout>
#include <QProcess>
#include <QSettings>
#include <QVBoxLayout>

namespace sawtooth::app {

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
      reset_(new QPushButton(tr("Reset to defaults"), this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)) {
  description_->setWordWrap(true);
  device_note_->setWordWrap(true);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
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
    connect(runner_.get(), &RecorderRunner::progress, this, [this](double fraction, const QString& run, const QString& m) {
      progress_->setValue(static_cast<int>(fraction * 1000));
      setStatus(run.isEmpty() ? m : QStringLiteral("%1 — %2").arg(run, m));
    });
    connect(runner_.get(), &RecorderRunner::finished, this,
            [this](RecorderRunner::Outcome outcome, const QString& path, const QString& message) {
              const bool ok = outcome == RecorderRunner::Outcome::Ok;
              if (ok) progress_->setValue(1000);
              QString text = tr("The recording %1.").arg(RecorderRunner::describe(outcome));
              if (!message.isEmpty() && !ok) text += QStringLiteral(" ") + message;
              setStatus(text, !ok && outcome != RecorderRunner::Outcome::Cancelled);
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
    if (status == QProcess::NormalExit && code == 0) catalog_ = WorkloadCatalog::parse(process->readAllStandardOutput(), &error);
    else error = tr("sawtooth-record --list failed: %1").arg(QString::fromUtf8(process->readAllStandardError()).trimmed());
    if (!catalog_) {
      setStatus(error, true);
      updateButtons();
      emit catalogFailed(error);
      return;
    }
    const QSignalBlocker block(workloads_);
    workloads_->clear();
    for (const auto& w : catalog_->workloads) workloads_->addItem(w.title, w.name);
    const QString last = QSettings().value(QStringLiteral("workloads/last")).toString();
    if (const int i = workloads_->findData(last); i >= 0) workloads_->setCurrentIndex(i);
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
  const QString d = device_->currentData().toString();
  return d == QLatin1String("cuda") || (d == QLatin1String("auto") && catalog_ && catalog_->cuda_available);
}

void WorkloadPanel::rebuildForm() {
  while (form_->rowCount() > 0) form_->removeRow(0);
  editors_.clear();
  ranks_ = nullptr;
  if (!catalog_) return;
  const WorkloadInfo* w = catalog_->find(currentWorkload());
  if (!w) return;
  description_->setText(w->description);
  const QString gpu = catalog_->deviceDescription();
  if (catalog_->cuda_available) device_note_->setText(tr("GPU: %1").arg(gpu));
  else device_note_->setText(tr("No GPU was found on this machine: workloads run on the CPU at a smaller scale (the "
                                "seed's sizes need a GPU). The Samples tabs hold runs recorded on an H200."));
  const QString kind = usesGpu() ? QStringLiteral("gpu") : QStringLiteral("cpu");
  QSettings settings;
  if (w->distributed) {
    // One process per rank; on GPUs one GPU per rank.
    ranks_ = new QSpinBox(form_host_);
    const int most = usesGpu() ? std::max(1, catalog_->cuda_devices) : 8;
    ranks_->setRange(1, most);
    ranks_->setValue(std::min(2, most));
    ranks_->setToolTip(usesGpu() ? tr("processes, one per GPU (%1 on this machine)").arg(catalog_->cuda_devices)
                                 : tr("processes, one per rank, sharing the CPU cores (Gloo)"));
    form_->addRow(tr("ranks"), ranks_);
  }
  for (const ParameterInfo& p : w->parameters) {
    const QString fallback = usesGpu() ? p.default_gpu : p.default_cpu;
    const QString value = settings.value(QStringLiteral("workloads/%1/%2/%3").arg(w->name, kind, p.name), fallback).toString();
    QWidget* editor;
    if (p.type == QLatin1String("choice")) {
      auto* combo = new QComboBox(form_host_);
      combo->addItems(p.choices);
      combo->setCurrentText(value);
      editor = combo;
    } else {
      auto* line = new QLineEdit(value, form_host_);
      connect(line, &QLineEdit::textChanged, this, [line, p](const QString& text) {
        const QString problem = p.validate(text);
        line->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("QLineEdit { background: #fde0dc; }"));
        line->setToolTip(problem.isEmpty() ? p.description : tr("%1: %2").arg(p.name, problem));
      });
      editor = line;
    }
    editor->setToolTip(QStringLiteral("%1 (default %2 on a GPU, %3 on the CPU)").arg(p.description, p.default_gpu, p.default_cpu));
    form_->addRow(p.name, editor);
    editors_.append({p, editor});
  }
}

QString WorkloadPanel::currentWorkload() const { return workloads_->currentData().toString(); }

void WorkloadPanel::selectWorkload(const QString& name) {
  if (const int i = workloads_->findData(name); i >= 0) workloads_->setCurrentIndex(i);
}

void WorkloadPanel::setDevice(const QString& device) {
  if (const int i = device_->findData(device); i >= 0) device_->setCurrentIndex(i);
}

bool WorkloadPanel::setParameter(const QString& name, const QString& value) {
  for (auto& [p, editor] : editors_) {
    if (p.name != name) continue;
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
    if (p.name != name) continue;
    if (auto* combo = qobject_cast<QComboBox*>(editor)) return combo->currentText();
    if (auto* line = qobject_cast<QLineEdit*>(editor)) return line->text().trimmed();
  }
  return {};
}

void WorkloadPanel::resetParameters() {
  for (auto& [p, editor] : editors_) {
    const QString value = usesGpu() ? p.default_gpu : p.default_cpu;
    if (auto* combo = qobject_cast<QComboBox*>(editor)) combo->setCurrentText(value);
    else if (auto* line = qobject_cast<QLineEdit*>(editor)) line->setText(value);
  }
}

QStringList WorkloadPanel::validationErrors() const {
  QStringList errors;
  for (const auto& [p, editor] : editors_)
    if (const QString problem = p.validate(parameter(p.name)); !problem.isEmpty())
      errors << QStringLiteral("%1: %2").arg(p.name, problem);
  return errors;
}

void WorkloadPanel::saveParameters() const {
  QSettings settings;
  settings.setValue(QStringLiteral("workloads/last"), currentWorkload());
  const QString kind = usesGpu() ? QStringLiteral("gpu") : QStringLiteral("cpu");
  for (const auto& [p, editor] : editors_)
    settings.setValue(QStringLiteral("workloads/%1/%2/%3").arg(currentWorkload(), kind, p.name), parameter(p.name));
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
  if (!QDir().mkpath(out_dir_)) {
    setStatus(tr("Cannot create %1 for the recording.").arg(out_dir_), true);
    return false;
  }
  saveParameters();
  RecorderRunner::Request request;
  request.workload = currentWorkload();
  request.device = device_->currentData().toString();
  request.ranks = ranks();
  for (const auto& [p, editor] : editors_) request.parameters.append({p.name, parameter(p.name)});
  request.out = QDir(out_dir_).filePath(
      QStringLiteral("%1-%2.sawtooth").arg(request.workload, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
  progress_->setValue(0);
  setStatus(tr("Starting sawtooth-record…"));
  runner_->start(request);
  updateButtons();
  emit recordingStarted(request.workload);
  return true;
}

void WorkloadPanel::cancel() {
  if (!isRunning()) return;
  setStatus(tr("Cancelling: the recorder closes its trace…"));
  runner_->cancel();
}

void WorkloadPanel::setStatus(const QString& text, bool error) {
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
}

}  // namespace sawtooth::app
