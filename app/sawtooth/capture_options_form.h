#pragma once
// The workload form's capture section: which steps to record (--steps A:B), how many of the
// newest events to keep (--window-events N) and how often to sample device memory
// (--sample-interval MS). Each field is checked by core/recording's rules, the ones the recorder
// applies to its command line; the last values are kept in QSettings, under a group of the
// caller's (the workload form's and the program dialog's are kept apart).

#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>
#include <QWidget>

namespace sawtooth::app {

class CaptureOptionsForm : public QWidget {
  Q_OBJECT
 public:
  explicit CaptureOptionsForm(QWidget* parent = nullptr, const QString& settings_group = QStringLiteral("capture"));
  // A recorder that samples within [min, max] ms only (sawtooth-record -- COMMAND: 5 to 60,000).
  void setSampleIntervalRange(int min_ms, int max_ms);

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

 signals:
  void changed();

 private:
  void showProblem(QLineEdit* field, const QString& problem, const QString& tooltip);
  QString stepsProblem() const;
  QString windowEventsProblem() const;

  QString group_;
  QLineEdit* steps_;
  QLineEdit* window_events_;
  QSpinBox* sample_interval_;
};

}  // namespace sawtooth::app
