#pragma once
// Pick a workload, set its parameters (the seed's defaults for the device that will run it),
// press Run, watch the progress, Cancel. The list and every parameter come from
// `sawtooth-record --list --json`; the recording runs in a child process (RecorderRunner).

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>
#include <memory>
#include <optional>

#include "app/sawtooth/capture_options_form.h"
#include "app/sawtooth/recorder_runner.h"
#include "app/sawtooth/workload_catalog.h"

namespace sawtooth::app {

class WorkloadPanel : public QWidget {
  Q_OBJECT
 public:
  // recorder: the sawtooth-record to use (empty: none available); recordings go to out_dir.
  WorkloadPanel(QString recorder, QString out_dir, QWidget* parent = nullptr);
  ~WorkloadPanel() override;

  // Asks the recorder for its workloads (asynchronously); catalogLoaded or catalogFailed follows.
  void loadCatalog();
  const std::optional<WorkloadCatalog>& catalog() const { return catalog_; }
  bool catalogPending() const { return !catalog_ && catalog_process_; }

  void selectWorkload(const QString& name);
  QString currentWorkload() const;
  // auto, cuda, cpu; false (the choice unchanged) when this machine cannot run it.
  bool setDevice(const QString& device);
  bool deviceSelectable(const QString& device) const;
  // Sets a parameter's editor; false when there is no such parameter.
  bool setParameter(const QString& name, const QString& value);
  void setRanks(int ranks);
  int ranks() const;
  QString parameter(const QString& name) const;
  void resetParameters();
  // Every parameter's problem, empty when all are acceptable.
  QStringList validationErrors() const;

  bool run();     // false (with the reason in the status line) when it cannot start
  // Records a program (sawtooth-record -- COMMAND) with this panel's runner, progress and Cancel;
  // `request` holds the program part (ProgramDialog::request()).
  bool runProgram(RecorderRunner::Request request);
  void cancel();
  bool isRunning() const { return runner_ && runner_->isRunning(); }
  RecorderRunner* runner() const { return runner_.get(); }
  QString statusText() const { return status_->text(); }
  bool statusIsError() const { return status_error_; }
  QProgressBar* progressBar() const { return progress_; }
  CaptureOptionsForm* captureOptions() const { return capture_; }

 signals:
  void catalogLoaded();
  void catalogFailed(QString message);
  void recordingStarted(QString workload);
  void recordingFinished(sawtooth::app::RecorderRunner::Outcome outcome, QString path, QString message);

 private:
  void rebuildForm();
  void updateDeviceChoices();
  bool usesGpu() const;
  void saveParameters() const;
  void setStatus(const QString& text, bool error = false);
  void updateButtons();

  QString recorder_;
  QString out_dir_;
  std::optional<WorkloadCatalog> catalog_;
  std::unique_ptr<RecorderRunner> runner_;
  QPointer<QProcess> catalog_process_;
  QComboBox* workloads_;
  QLabel* description_;
  QComboBox* device_;
  QLabel* device_note_;
  QFormLayout* form_;
  QSpinBox* ranks_ = nullptr;  // distributed workloads only
  QWidget* form_host_;
  QList<QPair<recording::ParameterSpec, QWidget*>> editors_;
  CaptureOptionsForm* capture_;
  QPushButton* reset_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  bool status_error_ = false;
};

}  // namespace sawtooth::app
