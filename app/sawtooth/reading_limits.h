#pragma once
// The reading limits the app opens files with (core/io/read_limits.h), kept in QSettings and set
// in Settings ▸ Reading limits…: the memory one file may take, the time it may take, and any
// other limit as NAME=VALUE (the names sawtooth-trace's --limit takes). A file refused by a limit
// says which; the app's message adds where to raise it.

#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QString>

#include "core/io/read_limits.h"

namespace sawtooth::app {

// The limits in QSettings (defaults where nothing is set, or where a saved value no longer parses).
ReadLimits readingLimitsFromSettings();
// What a file may take in memory for the views that read every event (events table, allocator,
// live bytes, modules, comparison): files estimated past it open from their summaries alone, those
// views saying they are not available for a file that size. QSettings "limits/whole_file_budget"
// (a size, e.g. 4G), 2 GiB by default, never more than the memory limit.
uint64_t wholeFileBudgetFromSettings();
void saveWholeFileBudget(uint64_t bytes);
// A reader's refusal, with where the app's user raises the limit it names.
QString withAppRaiseHint(const QString& error);

class ReadingLimitsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ReadingLimitsDialog(QWidget* parent = nullptr);

  void setMemory(const QString& text) { memory_->setText(text); }
  void setSeconds(const QString& text) { seconds_->setText(text); }
  void setOthers(const QString& lines) { others_->setPlainText(lines); }
  // The first field that does not parse, with the reason; empty when all do.
  QString problem() const;
  // Saves the fields (call when problem() is empty).
  void save() const;

 private:
  QLineEdit* memory_;
  QLineEdit* seconds_;
  QPlainTextEdit* others_;
  QLabel* problem_;
};

}  // namespace sawtooth::app
