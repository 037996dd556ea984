#pragma once
// The workload form's capture section: which steps to record (--steps A:B), how many of the
// newest events to keep (--window-events N) and how often to sample device memory
// (--sample-interval MS). Each field is checked by core/recording's rules, the ones the recorder
// applies to its command line; the last values are kept in QSettings.

#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>
#include <QWidget>

namespace sawtooth::app {

class CaptureOptionsForm : public QWidget {
  Q_OBJECT
 public:
  explicit CaptureOptionsForm(QWidget* parent = nullptr);

  // Empty text: every step, every event.
  void setSteps(const QString& steps) { steps_->setText(steps); }
  void setWindowEvents(const QString& events) { window_events_->setText(events); }
  void setSampleInterval(int milliseconds) { sample_interval_->setValue(milliseconds); }
  void reset();

  // Every field's problem ("--steps 9:2: B must be above A; expected ..."), empty when all are fine.
  QStringList validationErrors() const;
  // The recorder's options for these values (nothing for the defaults); call when valid.
  QStringList recorderArguments() const;
  void save() const;

 private:
  void showProblem(QLineEdit* field, const QString& problem, const QString& tooltip);
  QString stepsProblem() const;
  QString windowEventsProblem() const;

  QLineEdit* steps_;
  QLineEdit* window_events_;
  QSpinBox* sample_interval_;
};

}  // namespace sawtooth::app
