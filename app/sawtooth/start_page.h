#pragma once
// What the window shows when no tab is open: how to begin (open, record, run a workload), the
// recent files and the samples recorded on an H200, each one click away.

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QWidget>

namespace sawtooth::app {

class StartPage : public QWidget {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);
  // The recent files (newest first) and the samples (name, path) to offer.
  void setRecentFiles(const QStringList& files);
  void setSamples(const QList<QPair<QString, QString>>& samples);

  QListWidget* recentList() const { return recent_; }
  QListWidget* sampleList() const { return samples_; }

 signals:
  void openRequested(QString path, QString title);
  void openDialogRequested();
  void recordProgramRequested();
  void openAllSamplesRequested();

 private:
  QListWidget* recent_;
  QLabel* no_recent_;
  QListWidget* samples_;
  QPushButton* all_samples_;
};

}  // namespace sawtooth::app
