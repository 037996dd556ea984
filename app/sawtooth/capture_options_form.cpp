#include "app/sawtooth/capture_options_form.h"

#include <QFormLayout>
#include <QSettings>

#include "core/recording/capture_window_spec.h"
#include "views/qt_format.h"

namespace sawtooth::app {
namespace {

using views::toQString;

const QString kStepsKey = QStringLiteral("/steps");
const QString kWindowEventsKey = QStringLiteral("/window_events");
const QString kSampleIntervalKey = QStringLiteral("/sample_interval_ms");

}  // namespace

CaptureOptionsForm::CaptureOptionsForm(QWidget* parent, const QString& settings_group)
    : QWidget(parent),
      group_(settings_group),
      steps_(new QLineEdit(this)),
      window_events_(new QLineEdit(this)),
      sample_interval_(new QSpinBox(this)) {
  steps_->setObjectName(QStringLiteral("captureSteps"));
  window_events_->setObjectName(QStringLiteral("captureWindowEvents"));
  sample_interval_->setObjectName(QStringLiteral("captureSampleInterval"));
  steps_->setPlaceholderText(tr("every step (or A:B, A:, :B)"));
  window_events_->setPlaceholderText(tr("every event (or the last N)"));
  sample_interval_->setRange(0, static_cast<int>(recording::kMaxSampleIntervalMs));
  sample_interval_->setSuffix(tr(" ms"));
  sample_interval_->setSpecialValueText(tr("at phase boundaries only"));
  const QString steps_tip = tr("Record only steps A to B-1, counted from 0; what is alive at step A is written as a "
                               "baseline (--steps)");
  const QString window_tip = tr("Keep only the newest N events while the run goes on, like PyTorch's max_entries; "
                                "what is alive at the window's start becomes its baseline (--window-events)");
  steps_->setToolTip(steps_tip);
  window_events_->setToolTip(window_tip);
  sample_interval_->setToolTip(tr("How often device memory in use is sampled (--sample-interval)"));

  auto* layout = new QFormLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  layout->addRow(tr("steps"), steps_);
  layout->addRow(tr("keep last events"), window_events_);
  layout->addRow(tr("device samples"), sample_interval_);

  connect(steps_, &QLineEdit::textChanged, this, [this, steps_tip] {
    showProblem(steps_, stepsProblem(), steps_tip);
    emit changed();
  });
  connect(window_events_, &QLineEdit::textChanged, this, [this, window_tip] {
    showProblem(window_events_, windowEventsProblem(), window_tip);
    emit changed();
  });
  connect(sample_interval_, &QSpinBox::valueChanged, this, &CaptureOptionsForm::changed);

  QSettings settings;
  steps_->setText(settings.value(group_ + kStepsKey).toString());
  window_events_->setText(settings.value(group_ + kWindowEventsKey).toString());
  sample_interval_->setValue(settings.value(group_ + kSampleIntervalKey, recording::kDefaultSampleIntervalMs).toInt());
}

void CaptureOptionsForm::setSampleIntervalRange(int min_ms, int max_ms) {
  sample_interval_->setRange(min_ms, max_ms);
  sample_interval_->setSpecialValueText(QString());
}

void CaptureOptionsForm::reset() {
  steps_->clear();
  window_events_->clear();
  sample_interval_->setValue(recording::kDefaultSampleIntervalMs);
}

void CaptureOptionsForm::showProblem(QLineEdit* field, const QString& problem, const QString& tooltip) {
  field->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("QLineEdit { background: #fde0dc; }"));
  field->setToolTip(problem.isEmpty() ? tooltip : problem);
}

QString CaptureOptionsForm::stepsProblem() const {
  const QString text = steps_->text().trimmed();
  if (text.isEmpty()) return {};
  const QByteArray utf8 = text.toUtf8();
  auto range = recording::parseStepRange(std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())));
  return range ? QString() : toQString(range.error().message);
}

QString CaptureOptionsForm::windowEventsProblem() const {
  const QString text = window_events_->text().trimmed();
  if (text.isEmpty()) return {};
  bool ok = false;
  const qlonglong events = text.toLongLong(&ok);
  if (!ok) return tr("--window-events %1: expected a number of events, 1 or more").arg(text);
  const Status st = recording::checkWindowEvents(events);
  return st ? QString() : toQString(st.error().message);
}

QStringList CaptureOptionsForm::validationErrors() const {
  QStringList errors;
  for (const QString& problem : {stepsProblem(), windowEventsProblem()})
    if (!problem.isEmpty()) errors << problem;
  return errors;
}

QStringList CaptureOptionsForm::recorderArguments() const {
  QStringList args;
  if (const QString steps = steps_->text().trimmed(); !steps.isEmpty()) args << QStringLiteral("--steps") << steps;
  if (const QString events = window_events_->text().trimmed(); !events.isEmpty())
    args << QStringLiteral("--window-events") << events;
  if (sample_interval_->value() != recording::kDefaultSampleIntervalMs)
    args << QStringLiteral("--sample-interval") << QString::number(sample_interval_->value());
  return args;
}

void CaptureOptionsForm::save() const {
  QSettings settings;
  settings.setValue(group_ + kStepsKey, steps_->text().trimmed());
  settings.setValue(group_ + kWindowEventsKey, window_events_->text().trimmed());
  settings.setValue(group_ + kSampleIntervalKey, sample_interval_->value());
}

}  // namespace sawtooth::app
