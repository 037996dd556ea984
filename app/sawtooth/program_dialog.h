#pragma once
// File ▸ Record a program…: the command line of a program to record (sawtooth-record -- COMMAND),
// the folder it starts in, environment entries to add, and the shim's options. The last ones
// used are remembered (QSettings), the command lines as a list of recent ones. Its capture section
// (steps A:B, the last N events, device samples) is the workload form's, remembered apart.

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>

#include "app/sawtooth/capture_options_form.h"
#include "app/sawtooth/recorder_runner.h"

namespace sawtooth::app {

class ProgramDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ProgramDialog(QWidget* parent = nullptr);

  void setCommandLine(const QString& command) { command_->setCurrentText(command); }
  void setWorkingFolder(const QString& folder) { folder_->setText(folder); }
  void setEnvironment(const QString& lines) { environment_->setPlainText(lines); }
  void setStacks(const QString& stacks) { stacks_->setCurrentText(stacks); }
  void setKernels(bool on) { kernels_->setChecked(on); }
  void setModules(bool on) { modules_->setChecked(on); }
  CaptureOptionsForm* capture() const { return capture_; }

  // What is wrong with the fields ("the folder ... does not exist"), empty when they can run.
  QString problem() const;
  // The program part of a recorder request (command, folder, environment, options); out is the caller's.
  RecorderRunner::Request request() const;
  // Remembers the fields; the command line goes first in the recent list.
  void remember() const;
  static QStringList recentCommands();
  // A command line that QProcess::splitCommand reads back as argv (quoted where it must be).
  static QString commandLineOf(const QStringList& argv);

 private:
  void updateState();

  QComboBox* command_;
  QLineEdit* folder_;
  QPlainTextEdit* environment_;
  QComboBox* stacks_;
  QComboBox* cpu_;
  QCheckBox* kernels_;
  QCheckBox* modules_;
  CaptureOptionsForm* capture_;
  QLabel* problem_;
  QDialogButtonBox* buttons_;
};

}  // namespace sawtooth::app
