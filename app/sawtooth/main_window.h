#pragma once
// The main window: the workload panel (pick, configure, run, watch) beside one tab per open
// trace; open by menu, recent files, drag and drop or the command line; the ladder and
// comparisons as tabs of their own; exports act on the current tab's current view.

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QStackedWidget>
#include <QTabWidget>

#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/compare_dialog.h"
#include "app/sawtooth/ladder_controller.h"
#include "app/sawtooth/live_recording_tab.h"
#include "app/sawtooth/start_page.h"
#include "app/sawtooth/trace_controller.h"
#include "app/sawtooth/workload_panel.h"
#include "views/compare_view.h"
#include "views/comparison_tab.h"
#include "views/diff_sites_view.h"
#include "views/ladder_view.h"
#include "views/trace_tab.h"

namespace sawtooth::app {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // recorder: the sawtooth-record to run workloads with (empty: none); recordings go to out_dir.
  explicit MainWindow(QString recorder = findRecorder(), QString out_dir = {}, QWidget* parent = nullptr);

  // `handover`: a recording that just ended, whose live tab's timeline and zoom the tab takes over.
  views::TraceTab* openFile(const QString& path, const QString& title = {}, std::optional<LiveHandover> handover = {});
  // What a user's open does (menu, recent files, drop, command line): a file that a recorder is
  // writing right now (started anywhere: a terminal, a script) is followed live, and opens as a
  // trace when the recorder lets go of it; any other file opens as a trace.
  void openOrFollow(const QString& path);
  // Follows a recording another process writes; null when `path` is not being written.
  LiveRecordingTab* followRecording(const QString& path);
  views::TraceTab* currentTab() const;
  QTabWidget* tabs() const { return tabs_; }
  int tabCount() const { return tabs_->count(); }
  QList<views::TraceTab*> traceTabs() const;
  WorkloadPanel* workloadPanel() const { return panel_; }
  // The tab that shows the running recording growing; null when none runs (or it was closed).
  LiveRecordingTab* liveTab() const { return live_; }

  // The bundled recordings (the workloads on an H200, GPT-2 on an H100), in tabs named
  // "Sample: …". Returns how many opened.
  int openSamples();
  static QString samplesDirectory();
  static QStringList sampleNames();
  views::LadderView* showLadder();
  // A comparison tab (the timelines overlaid, the call sites diffed); the comparison itself
  // arrives from a job.
  views::CompareView* compare(views::TraceTab* a, views::TraceTab* b);
  // The current tab when it is a comparison, else null.
  views::ComparisonTab* currentComparison() const;
  // What the Compare dialog asks for: each side an open trace or a file, opened first; the
  // comparison follows once both have loaded (nothing when one fails to open).
  void compareSides(const CompareDialog::Side& a, const CompareDialog::Side& b);
  // Shown while no tab is open.
  StartPage* startPage() const { return start_; }
  bool startPageShown() const { return central_->currentWidget() == start_; }
  // The next or previous document tab (Ctrl+PgDown, Ctrl+PgUp), wrapping around.
  void cycleTabs(int step);
  JobRunner* jobs() { return &jobs_; }

  // File dialogs are skipped when a path is given (tests, scripts). True when the export started;
  // exportFinished follows with its outcome.
  bool exportChart(const QString& path = {});
  bool exportCsv(const QString& what, const QString& path = {});
  QString aboutText() const;

 signals:
  // A recording finished and its trace (if it left one) is opening in `tab`.
  void recordingOpened(sawtooth::views::TraceTab* tab, sawtooth::app::RecorderRunner::Outcome outcome);
  void exportFinished(QString path, QString error);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void openDialog();
  void compareDialog();
  void recordProgramDialog();
  // The Record a program dialog for a recorded program (its command, folder and the environment
  // entries its file kept), module tracking ticked: the Modules view's offer.
  void recordWithModules(const QStringList& argv, const QString& folder, const QStringList& environment);
  void rebuildRecentMenu();
  void closeTab(int index);
  void updateActions();
  void refreshLadder();
  void showStatus(const QString& text);
  void onRecordingFinished(RecorderRunner::Outcome outcome, const QString& path, const QString& message);
  // A recording that stopped before its ranks' files were merged: merged here, then opened.
  void mergeLeftRanksAndOpen(RecorderRunner::Outcome outcome, const QString& path, QList<views::ConsoleChunk> console);
  void openRecording(RecorderRunner::Outcome outcome, const QString& path, const QList<views::ConsoleChunk>& console,
                     std::optional<LiveHandover> handover = {});
  // A recording that left no trace but printed something: its console in a tab of its own.
  void openConsoleTab(const QString& name, const QString& message, const QList<views::ConsoleChunk>& console);
  void updateCentral();
  void openLiveTab(const QString& name);
  // A live tab following `path`, titled after `name`, made current.
  void followSiblingRanks(LiveRecordingTab* live, const QString& path);
  LiveRecordingTab* addLiveTab(const QString& path, const QString& name);
  void closeLiveTab();
  void maybeOpenSamplesAtFirstStart();
  void runComparison(views::CompareView* view, std::shared_ptr<const TraceAnalysis> a, QString name_a,
                     std::shared_ptr<const TraceAnalysis> b, QString name_b);
  // One side of a call-site diff: a trace read whole, or a file read on demand (its moment at the peak).
  struct DiffSideSource {
    std::shared_ptr<const TraceAnalysis> analysis;
    std::optional<TraceController::OnDemand> on_demand;
    QString name;
  };
  std::optional<DiffSideSource> diffSideOf(views::TraceTab* tab) const;
  // The comparison's "Call sites" tab: the two traces diffed by call site (core's diffInputs).
  void runSiteDiff(views::DiffSitesView* view, DiffSideSource a, DiffSideSource b);
  // The diff itself (in a job); `totals`: count what each side read on demand allocated over its file.
  static Result<std::shared_ptr<const CallSiteDiff>> siteDiffOf(const DiffSideSource& a, const DiffSideSource& b,
                                                                bool totals, Progress& p);
  void watchExport(const QString& path, bool interactive);
  // Writes a file a chart or table was turned into, in a job; its outcome goes to exportFinished.
  void runExport(const QString& path, bool interactive, std::function<Result<Ok>(Progress&)> work);

  JobRunner jobs_;
  QStackedWidget* central_;
  StartPage* start_;
  QTabWidget* tabs_;
  WorkloadPanel* panel_;
  QDockWidget* dock_;
  views::LadderView* ladder_ = nullptr;
  LadderController* ladder_controller_ = nullptr;
  LiveRecordingTab* live_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QList<QAction*> needs_trace_;
  QAction* by_time_ = nullptr;
  QAction* run_ = nullptr;
  QAction* cancel_ = nullptr;
  QAction* record_program_ = nullptr;
  QString recording_name_;  // the running recording's, for its console tab
};

}  // namespace sawtooth::app
