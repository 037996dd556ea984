#pragma once
// One open trace: while loading, a progress bar with Cancel; on failure, the reason; once
// loaded, the timeline above the events table, a summary line, and the view controls.

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <memory>

#include "views/events_view.h"
#include "views/timeline_chart.h"
#include "views/trace_load_job.h"

namespace sawtooth::views {

class TraceTab : public QWidget {
  Q_OBJECT
 public:
  enum class State { Loading, Failed, Cancelled, Ready };

  explicit TraceTab(QString path, QWidget* parent = nullptr);
  ~TraceTab() override;

  void startLoading();  // on a worker thread
  void cancelLoading();
  void showAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  void showError(const QString& message);

  State state() const { return state_; }
  const QString& path() const { return path_; }
  QString title() const;
  QString errorText() const { return error_label_->text(); }
  QString summaryText() const { return summary_->text(); }
  std::shared_ptr<const TraceAnalysis> analysis() const { return analysis_; }
  TimelineChart* timeline() const { return timeline_; }
  EventsView* events() const { return events_; }
  QProgressBar* progressBar() const { return progress_; }

  void setXAxisByTime(bool by_time);
  bool exportChart(const QString& path);
  // what: "series" or "events". Errors come back as a message, empty on success.
  QString exportCsv(const QString& what, const QString& path);

 signals:
  void stateChanged(sawtooth::views::TraceTab::State state);

 private:
  QWidget* buildLoadingPage();
  QWidget* buildErrorPage();
  QWidget* buildContentPage();
  void setState(State state);
  QString summarize() const;

  QString path_;
  State state_ = State::Loading;
  std::unique_ptr<TraceLoadJob> job_;
  std::shared_ptr<const TraceAnalysis> analysis_;
  QStackedWidget* pages_;
  QLabel* loading_label_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* error_label_ = nullptr;
  QLabel* summary_ = nullptr;
  QComboBox* x_axis_ = nullptr;
  QCheckBox* bands_ = nullptr;
  TimelineChart* timeline_ = nullptr;
  EventsView* events_ = nullptr;
};

}  // namespace sawtooth::views
