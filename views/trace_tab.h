#pragma once
// One open trace: while loading, a progress bar with Cancel; on failure, the reason; once
// loaded, a summary line and the views the trace supports, the one that answers its question
// first: the timeline with the events table (every trace), the peak comparison or the plan
// against the count (recordings with runs), the precision bars, the runs table, and the
// out-of-memory post-mortem.

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <memory>

#include "views/allocator_state_view.h"
#include "views/bar_chart.h"
#include "views/events_view.h"
#include "views/fragmentation_chart.h"
#include "views/live_bytes_view.h"
#include "views/oom_view.h"
#include "views/precision_view.h"
#include "views/ranks_view.h"
#include "views/runs_view.h"
#include "views/timeline_chart.h"
#include "views/trace_load_job.h"

namespace sawtooth::views {

class TraceTab : public QWidget {
  Q_OBJECT
 public:
  enum class State { Loading, Failed, Cancelled, Ready };
  enum class View { Timeline, Peaks, Plan, Precision, Ranks, Runs, OutOfMemory, Allocator, LiveBytes };

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
  BarChart* peaksChart() const { return peaks_; }
  BarChart* planChart() const { return plan_; }
  PrecisionView* precisionView() const { return precision_; }
  RunsView* runsView() const { return runs_; }
  OomView* oomView() const { return oom_; }
  RanksView* ranksView() const { return ranks_; }
  AllocatorStateView* allocatorView() const { return allocator_; }
  FragmentationChart* fragmentationChart() const { return fragmentation_; }
  LiveBytesView* liveBytesView() const { return live_; }
  QProgressBar* progressBar() const { return progress_; }

  bool hasView(View view) const;
  void showView(View view);
  View currentView() const;
  // The workload this recording ran (empty for imported files).
  QString workload() const;

  void setXAxisByTime(bool by_time);
  void setStackedCategories(bool stacked);
  // The chart of the current view, PNG or SVG by the file's suffix.
  bool exportChart(const QString& path);
  // what: "series" or "events" (core exporters), "table" (the current view's table).
  QString exportCsv(const QString& what, const QString& path);

 signals:
  void stateChanged(sawtooth::views::TraceTab::State state);

 private:
  QWidget* buildLoadingPage();
  QWidget* buildErrorPage();
  QWidget* buildContentPage();
  void setState(State state);
  QString summarize() const;
  void addView(View view, QWidget* page, const QString& title);
  std::set<int16_t> defaultDevices() const;

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
  QComboBox* devices_ = nullptr;
  QCheckBox* bands_ = nullptr;
  QCheckBox* stacked_ = nullptr;
  QTabWidget* views_ = nullptr;
  QWidget* timeline_page_ = nullptr;
  TimelineChart* timeline_ = nullptr;
  EventsView* events_ = nullptr;
  BarChart* peaks_ = nullptr;
  BarChart* plan_ = nullptr;
  PrecisionView* precision_ = nullptr;
  RunsView* runs_ = nullptr;
  OomView* oom_ = nullptr;
  RanksView* ranks_ = nullptr;
  AllocatorStateView* allocator_ = nullptr;
  FragmentationChart* fragmentation_ = nullptr;
  LiveBytesView* live_ = nullptr;
  std::vector<std::pair<View, QWidget*>> view_pages_;
};

}  // namespace sawtooth::views
