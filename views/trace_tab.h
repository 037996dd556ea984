#pragma once
// One open trace: while loading, a progress bar with Cancel; on failure, the reason; once loaded,
// a summary line and the views the trace supports, the one that answers its question first: the
// timeline with the events table (every trace), the peak comparison or the plan against the count
// (recordings with runs), the precision bars, the ranks, the runs table, and the out-of-memory
// post-mortem.
//
// A .sawtooth file with summaries shows its timeline first, from them (showOverview), while the
// rest loads in the background; a file too large to hold in memory stays that way (State::Summaries),
// the views that need every event saying so.
//
// The tab only draws: the app loads the file and builds its report (core/analysis/
// trace_report.h) off the GUI thread and hands it over with showReport(); the events table's rows
// and the rank lanes arrive the same way. Requests go out as signals.

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <memory>

#include "core/analysis/trace_report.h"
#include "views/allocator_state_view.h"
#include "views/bar_chart.h"
#include "views/console_view.h"
#include "views/events_view.h"
#include "views/fragmentation_chart.h"
#include "views/live_bytes_view.h"
#include "views/module_band.h"
#include "views/modules_view.h"
#include "views/oom_view.h"
#include "views/precision_view.h"
#include "views/ranks_view.h"
#include "views/runs_view.h"
#include "views/timeline_chart.h"

namespace sawtooth::views {

class TraceTab : public QWidget {
  Q_OBJECT
 public:
  // Summaries: the timeline from the file's summaries, and nothing that needs every event.
  // ConversionOffered: a snapshot too large to read whole, waiting for the user to convert it (or
  // to read it whole anyway).
  enum class State { Loading, Failed, Cancelled, Ready, Summaries, ConversionOffered };
  enum class View { Timeline, Peaks, Plan, Precision, Ranks, Runs, OutOfMemory, Allocator, LiveBytes, Console, Modules };

  explicit TraceTab(QString path, QWidget* parent = nullptr);
  ~TraceTab() override;

  // Setters the app calls as its jobs progress and finish.
  void setLoadProgress(int permille);
  void showReport(std::shared_ptr<const TraceReport> report);
  // The timeline from the file's summaries, before (or instead of) the report: the tab shows it at
  // once; a report that follows replaces what it showed, the zoom kept.
  void showOverview(std::shared_ptr<const TimelineOverview> overview);
  // The other views will not come (the file is over the budget; their loading failed or was
  // cancelled): why, above the timeline. The state becomes Summaries.
  void showSummariesOnly(const QString& why);
  // The events table, read a page at a time, under the timeline of a file shown from its summaries.
  void showPagedEvents();
  // The views a timeline from the summaries has beside it: the allocator, live bytes and modules
  // views when `moments` (each moment replayed from the file: app/sawtooth/summary_moments.h), and
  // what the runs' own measurements give (core/analysis/trace_report.h's runFiguresReport): the
  // plan line, the peak comparison, precision and runs views.
  void showOnDemandViews(bool moments, std::shared_ptr<const TraceReport> runs);
  // The same report with what one pass over the events adds (core/analysis/summary_report.h): the
  // plan against the count and the out-of-memory post-mortem, added as views when there are any.
  void showOnDemandFigures(std::shared_ptr<const TraceReport> report);
  // What the pass that counts those figures is doing ("Counting … 42 %"), under the notice; empty
  // hides it.
  void setFiguresPass(const QString& text);
  QString figuresPassText() const { return figures_pass_->isHidden() ? QString() : figures_pass_->text(); }
  // The report a file read on demand shows (the runs' figures, then the whole pass's); null otherwise.
  std::shared_ptr<const TraceReport> onDemandReport() const { return on_demand_report_; }
  // The timeline is on screen (from the summaries or the report).
  bool timelineShown() const { return overview_ != nullptr || report_ != nullptr; }
  std::shared_ptr<const TimelineOverview> overview() const { return overview_; }
  // What the strip above the timeline says about the other views (loading, or why not); empty once
  // they are shown.
  QString otherViewsText() const { return other_views_->isHidden() ? QString() : other_views_->text(); }
  void showError(const QString& message);
  void showCancelled();
  // Why the file should be converted before it is read, with Convert and Read whole anyway buttons
  // (convertRequested, readWholeRequested).
  void offerConversion(const QString& why);
  // The loading page again (progress and Cancel), saying what is being done: "Converting …".
  void showLoading(const QString& text);
  // What the recording printed (a recording the app ran): a Console view, the first one shown when
  // `show_first` (a program that failed); beside the reason when the trace cannot be opened.
  void setConsole(const QList<ConsoleChunk>& chunks, bool show_first);
  ConsoleView* console() const { return console_; }

  State state() const { return state_; }
  const QString& path() const { return path_; }
  QString title() const;
  QString errorText() const { return error_label_->text(); }
  QString errorMessage() const { return error_message_; }  // plain text, for a terminal
  QString summaryText() const { return summary_->text(); }
  // An incomplete recording, what the import skipped and anomalies; empty when there are none.
  QString noticeText() const { return notices_->text(); }
  std::shared_ptr<const TraceReport> report() const { return report_; }
  std::shared_ptr<const TraceAnalysis> analysis() const { return report_ ? report_->analysis : nullptr; }
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
  ModulesView* modulesView() const { return modules_; }
  ModuleBandView* moduleBand() const { return module_band_; }  // under the timeline
  QProgressBar* progressBar() const { return progress_; }
  QCheckBox* stackedBox() const { return stacked_; }
  QCheckBox* yFromZeroBox() const { return y_from_zero_; }

  bool hasView(View view) const;
  void showView(View view);
  View currentView() const;
  // The workload this recording ran (empty for imported files).
  QString workload() const;

  void setXAxisByTime(bool by_time);
  void setStackedCategories(bool stacked);
  // The chart of the current view (for PNG and SVG exports).
  QGraphicsView* currentChart() const;
  // The current view's picture when it is painted rather than charted (the segment map, the flame
  // graph); no widget otherwise.
  PaintedWidget currentPicture() const;
  // What "Export table" writes for the current view: a table, or the events table's rows.
  struct TableExport {
    std::shared_ptr<const Table> table;
    std::optional<EventRows> events;
    std::shared_ptr<const Trace> trace;
  };
  TableExport currentTable() const;

 signals:
  void stateChanged(sawtooth::views::TraceTab::State state);
  void cancelRequested();
  void convertRequested();
  void readWholeRequested();
  void eventQueryChanged(sawtooth::EventQuery query);

 private:
  QWidget* buildLoadingPage();
  QWidget* buildErrorPage();
  QWidget* buildOfferPage();
  QWidget* buildContentPage();
  void setState(State state);
  QString summarize() const;
  QString summarizeOverview() const;
  void setDeviceChoices(const std::vector<std::pair<int16_t, QString>>& devices);
  QString notices() const;
  void addView(View view, QWidget* page, const QString& title);
  std::set<int16_t> defaultDevices() const;

  QString path_;
  State state_ = State::Loading;
  QString error_message_;
  std::shared_ptr<const TraceReport> report_;
  std::shared_ptr<const TraceReport> on_demand_report_;
  std::shared_ptr<const TimelineOverview> overview_;
  QLabel* other_views_ = nullptr;
  QLabel* figures_pass_ = nullptr;
  QStackedWidget* pages_;
  QLabel* loading_label_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* error_label_ = nullptr;
  QLabel* offer_label_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* notices_ = nullptr;
  QComboBox* x_axis_ = nullptr;
  QComboBox* devices_ = nullptr;
  QAction* devices_action_ = nullptr;  // the tool bar's: it shows and hides the combo box
  QAction* stacked_action_ = nullptr;
  QCheckBox* bands_ = nullptr;
  QCheckBox* stacked_ = nullptr;
  QCheckBox* y_from_zero_ = nullptr;
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
  ModuleBandView* module_band_ = nullptr;
  LiveBytesView* live_ = nullptr;
  ModulesView* modules_ = nullptr;
  ConsoleView* console_ = nullptr;
  bool console_first_ = false;
  QWidget* error_page_ = nullptr;
  std::vector<std::pair<View, QWidget*>> view_pages_;
};

}  // namespace sawtooth::views
