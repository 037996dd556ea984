#include "app/sawtooth/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QActionGroup>
#include <QLabel>
#include <QTabBar>
#include <QVBoxLayout>

#include "app/sawtooth/app_logging.h"
#include "app/sawtooth/appearance.h"
#include "app/sawtooth/overlay_controller.h"
#include "app/sawtooth/program_dialog.h"
#include "app/sawtooth/reading_limits.h"
#include "app/sawtooth/recent_files.h"
#include "app/sawtooth/trace_jobs.h"
#include "core/analysis/site_tables.h"
#include "core/analysis/summary_moment.h"
#include "core/analysis/trace_diff.h"
#include "core/io/event_pages.h"
#include "core/io/output_claim.h"
#include "core/recording/rank_files.h"
#include "views/chart_export.h"
#include "views/modules_view.h"
#include "views/qt_format.h"

// Resources compiled into a static library must be registered by name, outside any namespace.
static void initSawtoothResources() { Q_INIT_RESOURCE(sawtooth); }

namespace sawtooth::app {
namespace {

const QString kTraceFilter = QObject::tr(
    "Memory traces (*.pickle *.pickle.gz *.pkl *.json *.json.gz *.prof *.prof.gz *.pb.gz *.sawtooth);;PyTorch snapshots "
    "(*.pickle *.pickle.gz *.pkl);;torch.profiler traces and memory timelines (*.json *.json.gz);;JAX memory profiles "
    "(*.prof *.prof.gz *.pb.gz);;Sawtooth traces (*.sawtooth);;All files (*)");

QString defaultRecordingDirectory() {
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/recordings");
}

}  // namespace

MainWindow::MainWindow(QString recorder, QString out_dir, QWidget* parent)
    : QMainWindow(parent),
      central_(new QStackedWidget(this)),
      start_(new StartPage(central_)),
      tabs_(new QTabWidget(central_)),
      panel_(new WorkloadPanel(recorder, out_dir.isEmpty() ? defaultRecordingDirectory() : out_dir)),
      dock_(new QDockWidget(tr("Workloads"), this)) {
  initSawtoothResources();
  setWindowTitle(tr("Sawtooth"));
  setWindowIcon(QIcon(QStringLiteral(":/sawtooth/sawtooth.svg")));
  setAcceptDrops(true);
  tabs_->setTabsClosable(true);
  tabs_->setMovable(true);
  tabs_->setDocumentMode(true);
  tabs_->setElideMode(Qt::ElideMiddle);
  central_->addWidget(start_);
  central_->addWidget(tabs_);
  setCentralWidget(central_);
  connect(start_, &StartPage::openRequested, this, [this](const QString& path, const QString& title) {
    if (title.isEmpty()) openOrFollow(path);
    else openFile(path, title);
  });
  connect(start_, &StartPage::openDialogRequested, this, &MainWindow::openDialog);
  connect(start_, &StartPage::recordProgramRequested, this, &MainWindow::recordProgramDialog);
  connect(start_, &StartPage::openAllSamplesRequested, this, [this] { openSamples(); });
  {
    QList<QPair<QString, QString>> samples;
    const QDir dir(samplesDirectory());
    for (const QString& name : sampleNames())
      if (const QString path = dir.filePath(name + QStringLiteral(".sawtooth")); QFileInfo::exists(path))
        samples.append({name, path});
    start_->setSamples(samples);
  }
  auto* scroll = new QScrollArea(dock_);
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  dock_->setObjectName(QStringLiteral("workloads"));
  dock_->setWidget(scroll);
  dock_->setMinimumWidth(240);
  addDockWidget(Qt::LeftDockWidgetArea, dock_);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    updateActions();
    updateCentral();
  });
  connect(panel_, &WorkloadPanel::recordingFinished, this, &MainWindow::onRecordingFinished);
  connect(panel_, &WorkloadPanel::recordingStarted, this, [this](const QString& name) {
    recording_name_ = name;
    openLiveTab(name);
    updateActions();
  });
  // Run (F5) becomes possible once the recorder has listed its workloads, whatever tab is current.
  connect(panel_, &WorkloadPanel::catalogLoaded, this, [this] { updateActions(); });
  connect(panel_, &WorkloadPanel::catalogFailed, this, [this] { updateActions(); });
  // Queued: files given on the command line open first (and then no samples are opened).
  connect(panel_, &WorkloadPanel::catalogLoaded, this, &MainWindow::maybeOpenSamplesAtFirstStart, Qt::QueuedConnection);
  connect(panel_, &WorkloadPanel::catalogFailed, this, &MainWindow::maybeOpenSamplesAtFirstStart, Qt::QueuedConnection);
  buildMenus();
  statusBar()->showMessage(tr("Pick a workload and press Run (F5), or open a PyTorch memory snapshot, a torch.profiler "
                              "trace or a .sawtooth file (Ctrl+O, or drop one here)."));
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) resize(1400, 880);
  updateActions();
  updateCentral();
  panel_->loadCatalog();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addAction(tr("Open the &samples recorded on a GPU"), this, [this] { openSamples(); });
  file->addAction(tr("&Compare two traces…"), QKeySequence(tr("Ctrl+Shift+C")), this, &MainWindow::compareDialog);
  record_program_ = file->addAction(tr("Record a &program…"), QKeySequence(tr("Ctrl+Shift+R")), this,
                                    &MainWindow::recordProgramDialog);
  file->addSeparator();
  needs_trace_ << file->addAction(tr("Export chart as PNG or SVG…"), QKeySequence(tr("Ctrl+E")), this, [this] { exportChart(); });
  needs_trace_ << file->addAction(tr("Export table as CSV…"), QKeySequence(tr("Ctrl+Shift+E")), this,
                                  [this] { exportCsv(QStringLiteral("table")); });
  needs_trace_ << file->addAction(tr("Export series as CSV…"), this, [this] { exportCsv(QStringLiteral("series")); });
  needs_trace_ << file->addAction(tr("Export events as CSV…"), this, [this] { exportCsv(QStringLiteral("events")); });
  file->addSeparator();
  file->addAction(tr("&Close tab"), QKeySequence::Close, this, [this] { closeTab(tabs_->currentIndex()); });
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run_ = run->addAction(tr("&Run workload"), QKeySequence(Qt::Key_F5), panel_, &WorkloadPanel::run);
  cancel_ = run->addAction(tr("&Cancel recording"), QKeySequence(Qt::SHIFT | Qt::Key_F5), panel_, &WorkloadPanel::cancel);
  run->addAction(dock_->toggleViewAction());

  QMenu* view = menuBar()->addMenu(tr("&View"));
  by_time_ = view->addAction(tr("X axis in &time"));
  by_time_->setCheckable(true);
  by_time_->setShortcut(QKeySequence(tr("Ctrl+T")));
  connect(by_time_, &QAction::toggled, this, [this](bool on) {
    if (auto* tab = currentTab()) tab->setXAxisByTime(on);
  });
  needs_trace_ << by_time_;
  needs_trace_ << view->addAction(tr("&Reset zoom"), QKeySequence(tr("Ctrl+0")), this, [this] {
    if (auto* tab = currentTab()) tab->timeline()->resetZoom();
  });
  view->addAction(tr("The &ladder, measured here"), QKeySequence(tr("Ctrl+L")), this, [this] { showLadder(); });

  view->addSeparator();
  // Ctrl+Tab moves between a trace's views; these move between the open traces.
  view->addAction(tr("&Next tab"), QKeySequence(Qt::CTRL | Qt::Key_PageDown), this, [this] { cycleTabs(1); });
  view->addAction(tr("&Previous tab"), QKeySequence(Qt::CTRL | Qt::Key_PageUp), this, [this] { cycleTabs(-1); });

  QMenu* settings = menuBar()->addMenu(tr("&Settings"));
  settings->addAction(tr("&Reading limits…"), this, [this] { ReadingLimitsDialog(this).exec(); });
  QMenu* appearance = settings->addMenu(tr("&Appearance"));
  auto* schemes = new QActionGroup(appearance);
  for (const auto& [scheme, label] : {std::pair{ColorScheme::System, tr("Follow the &desktop")},
                                      std::pair{ColorScheme::Light, tr("&Light")}, std::pair{ColorScheme::Dark, tr("&Dark")}}) {
    QAction* a = appearance->addAction(label);
    a->setCheckable(true);
    a->setChecked(savedColorScheme() == scheme);
    a->setData(colorSchemeName(scheme));
    schemes->addAction(a);
    connect(a, &QAction::triggered, this, [scheme] {
      saveColorScheme(scheme);
      applyColorScheme(scheme);
    });
  }

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Sawtooth"), this, [this] { QMessageBox::about(this, tr("About Sawtooth"), aboutText()); });
}

QString MainWindow::aboutText() const {
  QString text = tr("<h3>Sawtooth %1</h3><p>GPU memory profiler and visualizer for PyTorch and LibTorch.</p><p>Qt %2")
                     .arg(QStringLiteral(SAWTOOTH_VERSION), QString::fromLatin1(qVersion()));
  if (const auto& c = panel_->catalog()) {
    auto add = [&](const char* key, const QString& label) {
      if (auto it = c->environment.find(key); it != c->environment.end())
        text += QStringLiteral("<br>%1 %2").arg(label, views::toQString(it->second).toHtmlEscaped());
    };
    add("torch_version", tr("LibTorch"));
    add("cuda_runtime_version", tr("CUDA runtime"));
    add("cuda_driver_version", tr("CUDA driver"));
    add("device_name", tr("GPU"));
    if (!c->cuda_available) text += tr("<br>No GPU found: workloads run on the CPU at a smaller scale.");
  } else {
    text += tr("<br>LibTorch: not available (sawtooth-record was not found or did not answer)");
  }
  return text + QStringLiteral("</p>");
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList files = RecentFiles::load();
  for (const QString& f : files) recent_menu_->addAction(f, this, [this, f] { openOrFollow(f); });
  if (files.isEmpty()) recent_menu_->addAction(tr("(none)"))->setEnabled(false);
  start_->setRecentFiles(files);
  recent_menu_->addSeparator();
  recent_menu_->addAction(tr("Clear"), this, [this] {
    RecentFiles::clear();
    rebuildRecentMenu();
  });
}

views::TraceTab* MainWindow::openFile(const QString& path, const QString& title, std::optional<LiveHandover> handover) {
  qCDebug(lcWindow) << "opening" << path;
  auto* tab = new views::TraceTab(QFileInfo(path).absoluteFilePath(), tabs_);
  auto* controller = new TraceController(jobs_, tab);
  connect(controller, &TraceController::exportFinished, this, &MainWindow::exportFinished);
  connect(tab->modulesView(), &views::ModulesView::recordAgainWithModules, this,
          [this](const QStringList& argv, const QString& folder, const QStringList& environment) {
            recordWithModules(argv, folder, environment);
          });
  const int index = tabs_->addTab(tab, title.isEmpty() ? tab->title() : title);
  tabs_->setTabToolTip(index, tab->path());
  tabs_->setCurrentIndex(index);
  connect(tab, &views::TraceTab::stateChanged, this, [this, tab](views::TraceTab::State state) {
    if (state == views::TraceTab::State::Ready || state == views::TraceTab::State::Summaries) {
      if (!tab->path().startsWith(samplesDirectory())) {
        RecentFiles::add(tab->path());
        rebuildRecentMenu();
      }
      showStatus(tr("Opened %1").arg(tab->path()));
      refreshLadder();
    } else if (state == views::TraceTab::State::Failed) {
      showStatus(tr("Could not open %1").arg(tab->path()));
    }
    updateActions();
  });
  if (handover) controller->adopt(*handover);
  else controller->load();
  return tab;
}

void MainWindow::openOrFollow(const QString& path) {
  if (!followRecording(path)) openFile(path);
}

LiveRecordingTab* MainWindow::followRecording(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  if (!isBeingWritten(absolute.toStdString())) return nullptr;
  auto* live = addLiveTab(absolute, QFileInfo(path).completeBaseName());
  live->setStoppable(false);  // another process's recording: stopped where it was started
  followSiblingRanks(live, absolute);
  connect(live->follower(), &LiveFollower::recordingEnded, this, [this, live, absolute] {
    const int at = tabs_->indexOf(live);
    if (at < 0) return;
    QWidget* current = tabs_->currentWidget() == live ? nullptr : tabs_->currentWidget();
    live->stopFollowing();
    const auto handover = live->handover();
    tabs_->removeTab(at);
    live->deleteLater();
    auto* tab = openFile(absolute, {}, handover);  // in the live tab's place, the user's current tab kept
    tabs_->tabBar()->moveTab(tabs_->indexOf(tab), at);
    if (current) tabs_->setCurrentWidget(current);
    showStatus(tr("The recording %1 ended; it is open as a trace.").arg(absolute));
  });
  showStatus(tr("%1 is being recorded: following it live.").arg(absolute));
  qCInfo(lcWindow) << "following" << absolute << "written by another process";
  return live;
}

views::TraceTab* MainWindow::currentTab() const { return qobject_cast<views::TraceTab*>(tabs_->currentWidget()); }

QList<views::TraceTab*> MainWindow::traceTabs() const {
  QList<views::TraceTab*> out;
  for (int i = 0; i < tabs_->count(); ++i)
    if (auto* t = qobject_cast<views::TraceTab*>(tabs_->widget(i))) out << t;
  return out;
}

QStringList MainWindow::sampleNames() {
  // The seed's workloads recorded on an H200, and a program of the user's kind: GPT-2 small from
  // transformers recorded by sawtooth-record on an H100 (modules, Python stacks, its ladder).
  return {QStringLiteral("anatomy"), QStringLiteral("checkpointing"), QStringLiteral("precision"),
          QStringLiteral("accumulation"), QStringLiteral("gpt2")};
}

QString MainWindow::samplesDirectory() {
  // Installed next to the program (share/sawtooth/samples), or the source tree's when run from a build.
  const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/sawtooth/samples");
  if (QFileInfo(installed).isDir()) return QFileInfo(installed).canonicalFilePath();
  return QStringLiteral(SAWTOOTH_SOURCE_SAMPLES);
}

int MainWindow::openSamples() {
  const QDir dir(samplesDirectory());
  int opened = 0;
  for (const QString& name : sampleNames()) {
    const QString path = dir.filePath(name + QStringLiteral(".sawtooth"));
    if (!QFileInfo::exists(path)) continue;
    openFile(path, tr("Sample: %1").arg(name));
    ++opened;
  }
  if (opened == 0) showStatus(tr("No sample traces were found in %1").arg(dir.path()));
  else tabs_->setCurrentIndex(tabs_->count() - opened);
  return opened;
}

void MainWindow::maybeOpenSamplesAtFirstStart() {
  QSettings settings;
  if (settings.value(QStringLiteral("firstStartDone")).toBool()) return;
  settings.setValue(QStringLiteral("firstStartDone"), true);
  // A newcomer without a GPU and without a file sees real results at once.
  const bool gpu = panel_->catalog() && panel_->catalog()->cuda_available;
  if (tabs_->count() == 0 && !gpu) openSamples();
}

views::LadderView* MainWindow::showLadder() {
  if (!ladder_) {
    ladder_ = new views::LadderView(tabs_);
    connect(ladder_, &views::LadderView::chartRequested, this, [this](const QString& workload, const QString&) {
      for (views::TraceTab* t : traceTabs()) {
        if (t->workload() != workload) continue;
        tabs_->setCurrentWidget(t);
        if (t->hasView(views::TraceTab::View::Precision)) t->showView(views::TraceTab::View::Precision);
        else if (t->hasView(views::TraceTab::View::Peaks)) t->showView(views::TraceTab::View::Peaks);
        return;
      }
    });
    ladder_controller_ = new LadderController(jobs_, ladder_);
    connect(ladder_, &QObject::destroyed, this, [this] {
      ladder_ = nullptr;
      ladder_controller_ = nullptr;
    });
    tabs_->insertTab(0, ladder_, tr("Ladder"));
  }
  refreshLadder();
  tabs_->setCurrentWidget(ladder_);
  return ladder_;
}

void MainWindow::refreshLadder() {
  if (!ladder_) return;
  // The ladder reads a few measurements of each run: small enough for the GUI thread. A file read
  // on demand gives them from its tables (its runs), once the tab has read them.
  std::vector<const Trace*> traces;
  std::vector<std::shared_ptr<const Trace>> tables;
  std::vector<LadderController::Source> sources;
  for (views::TraceTab* t : traceTabs())
    if (t->state() == views::TraceTab::State::Ready) {
      traces.push_back(&t->analysis()->trace());
      sources.push_back({tabs_->tabText(tabs_->indexOf(t)), t->analysis()});
    } else if (auto* controller = t->findChild<TraceController*>(); controller && controller->onDemand()) {
      if (auto read = controller->onDemand()->tables) {
        tables.push_back(read);
        traces.push_back(read.get());
      }
      sources.push_back({tabs_->tabText(tabs_->indexOf(t)), nullptr});
    }
  ladder_->setRungs(ladder(traces));
  // The ladder for one recording is computed off the GUI thread.
  ladder_controller_->setSources(std::move(sources));
}

std::optional<MainWindow::DiffSideSource> MainWindow::diffSideOf(views::TraceTab* tab) const {
  if (!tab) return std::nullopt;
  DiffSideSource side;
  side.name = tabs_->tabText(tabs_->indexOf(tab));
  if (tab->analysis()) side.analysis = tab->analysis();
  else if (auto* controller = tab->findChild<TraceController*>()) side.on_demand = controller->onDemand();
  if (!side.analysis && !side.on_demand) return std::nullopt;
  return side;
}

views::CompareView* MainWindow::compare(views::TraceTab* a, views::TraceTab* b) {
  auto side_a = diffSideOf(a), side_b = diffSideOf(b);
  if (!side_a || !side_b) return nullptr;
  auto* tab = new views::ComparisonTab(tabs_);
  views::CompareView* view = tab->compareView();
  const QString name_a = side_a->name, name_b = side_b->name;
  const int index = tabs_->addTab(tab, tr("Compare"));
  tabs_->setTabToolTip(index, tr("%1 against %2").arg(name_a, name_b));
  tabs_->setCurrentIndex(index);
  connect(tab, &QTabWidget::currentChanged, this, [this] { updateActions(); });
  if (side_a->analysis && side_b->analysis) {
    auto analysis_a = side_a->analysis, analysis_b = side_b->analysis;
    connect(view, &views::CompareView::alignmentChanged, this,
            [this, view, analysis_a, name_a, analysis_b, name_b] { runComparison(view, analysis_a, name_a, analysis_b, name_b); });
    runComparison(view, analysis_a, name_a, analysis_b, name_b);
  } else {
    // A file past the whole-file budget: the timelines from the summaries of both.
    auto overlaySide = [](const DiffSideSource& side) {
      OverlayTimeline::Side o;
      o.analysis = side.analysis;
      o.name = side.name.toStdString();
      if (side.on_demand) {
        o.timeline = side.on_demand->timeline;
        o.tables = side.on_demand->tables;
        o.path = side.on_demand->source;
      }
      return o;
    };
    (new OverlayController(jobs_, view, overlaySide(*side_a), overlaySide(*side_b)))->run();
  }
  runSiteDiff(tab->sitesView(), std::move(*side_a), std::move(*side_b));
  updateActions();
  return view;
}

views::ComparisonTab* MainWindow::currentComparison() const { return qobject_cast<views::ComparisonTab*>(tabs_->currentWidget()); }

void MainWindow::runComparison(views::CompareView* view, std::shared_ptr<const TraceAnalysis> a, QString name_a,
                               std::shared_ptr<const TraceAnalysis> b, QString name_b) {
  view->setBusy(tr("Comparing %1 with %2…").arg(name_a, name_b));
  const Alignment alignment = view->alignment();
  jobs_.run<std::shared_ptr<const Comparison>>(
      QStringLiteral("compare %1").arg(reinterpret_cast<quintptr>(view), 0, 16), tr("Comparing"), view,
      [a, b, na = name_a.toStdString(), nb = name_b.toStdString(), alignment](Progress& p)
          -> Result<std::shared_ptr<const Comparison>> {
        auto c = compareTraces(*a, na, *b, nb, alignment, &p);
        if (!c) return c.error();
        return std::make_shared<const Comparison>(std::move(*c));
      },
      [view](std::shared_ptr<const Comparison> c) { view->setComparison(std::move(c)); },
      [view](const QString& error) { view->setFailed(error); });
}

// A side read on demand is its tables (EventPages) and its moment at the peak, and with `totals`
// what its device allocated over the whole file (one pass).
Result<std::shared_ptr<const CallSiteDiff>> MainWindow::siteDiffOf(const DiffSideSource& a, const DiffSideSource& b,
                                                                   bool totals, Progress& p) {
  struct Input {
    std::shared_ptr<const Trace> tables;
    std::optional<SummaryMoment> moment;
    std::optional<std::vector<AllocatedTotal>> totals;
    DiffInput in;
  };
  auto input = [&p, totals](const DiffSideSource& side, Input& out) -> Status {
    out.in.file = side.name.toStdString();
    if (side.analysis) {
      out.in.trace = &side.analysis->trace();
      return Ok{};
    }
    out.tables = side.on_demand->tables;
    if (!out.tables) {  // the tab has not read them yet
      auto pages = EventPages::open(side.on_demand->source, readingLimitsFromSettings());
      if (!pages) return pages.error();
      out.tables = (*pages)->tables();
    }
    auto moment = side.on_demand->timeline->moment(*out.tables, side.on_demand->device, std::nullopt, p);
    if (!moment) return moment.error();
    out.moment = std::move(*moment);
    out.in.trace = out.tables.get();
    out.in.moment = &*out.moment;
    if (totals) {
      auto counted = side.on_demand->timeline->allocatedTotals(side.on_demand->device, p);
      if (!counted) return counted.error();
      out.totals = std::move(*counted);
      out.in.totals = &*out.totals;
    }
    return Ok{};
  };
  Input ia, ib;
  if (Status st = input(a, ia); !st) return st.error();
  if (Status st = input(b, ib); !st) return st.error();
  auto diff = diffInputs(ia.in, ib.in);
  if (!diff) return diff.error();
  if (!diff->totals_known && !totals)
    diff->change.lines.push_back(
        "Counting what each site allocated over the whole file (one pass over its events); the columns follow.");
  return std::make_shared<const CallSiteDiff>(callSiteDiff(std::move(*diff), views::DivergingBarChart::kSites));
}

void MainWindow::runSiteDiff(views::DiffSitesView* view, DiffSideSource a, DiffSideSource b) {
  view->setMessage(tr("Matching the call sites of %1 and %2…").arg(a.name, b.name));
  const QString slot = QStringLiteral("sites %1").arg(reinterpret_cast<quintptr>(view), 0, 16);
  jobs_.run<std::shared_ptr<const CallSiteDiff>>(
      slot, tr("Diffing by call site"), view,
      [a, b](Progress& p) { return siteDiffOf(a, b, false, p); },
      [this, view, slot, a, b](std::shared_ptr<const CallSiteDiff> diff) {
        view->setDiff(diff);
        if (diff->diff.totals_known) return;
        // A file past the budget: what each site allocated over it, counted in a second pass.
        jobs_.run<std::shared_ptr<const CallSiteDiff>>(
            slot + QStringLiteral(" totals"), tr("Counting what each site allocated"), view,
            [a, b](Progress& p) { return siteDiffOf(a, b, true, p); },
            [view](std::shared_ptr<const CallSiteDiff> counted) { view->setDiff(std::move(counted)); },
            [view, diff](const QString& error) {
              auto said = std::make_shared<CallSiteDiff>(*diff);
              said->diff.change.lines.back() =
                  tr("What each site allocated over the whole file was not counted: %1").arg(error).toStdString();
              view->setDiff(std::move(said));
            });
      },
      [view](const QString& error) { view->setMessage(error); });
}

void MainWindow::recordProgramDialog() {
  ProgramDialog dialog(this);
  if (dialog.exec() != QDialog::Accepted) return;
  panel_->runProgram(dialog.request());
}

void MainWindow::recordWithModules(const QStringList& argv, const QString& folder, const QStringList& environment) {
  ProgramDialog dialog(this);
  dialog.setCommandLine(ProgramDialog::commandLineOf(argv));
  if (!folder.isEmpty()) dialog.setWorkingFolder(folder);
  dialog.setEnvironment(environment.join(QLatin1Char('\n')));
  dialog.setModules(true);
  if (dialog.exec() != QDialog::Accepted) return;
  panel_->runProgram(dialog.request());
}

void MainWindow::compareDialog() {
  QList<QPair<views::TraceTab*, QString>> open;
  for (views::TraceTab* t : traceTabs())
    if (diffSideOf(t)) open.append({t, tabs_->tabText(tabs_->indexOf(t))});
  CompareDialog dialog(open, this);
  if (dialog.exec() == QDialog::Accepted) compareSides(dialog.side(0), dialog.side(1));
}

void MainWindow::compareSides(const CompareDialog::Side& a_side, const CompareDialog::Side& b_side) {
  auto resolve = [this](const CompareDialog::Side& side) -> views::TraceTab* {
    if (side.tab) return side.tab;
    for (views::TraceTab* t : traceTabs())
      if (t->path() == side.path && t->state() != views::TraceTab::State::Failed) return t;
    return side.path.isEmpty() ? nullptr : openFile(side.path);
  };
  QPointer<views::TraceTab> a = resolve(a_side), b = resolve(b_side);
  if (!a || !b) return;
  // Read whole, or read on demand from its summaries (a file past the whole-file budget).
  auto ready = [this](views::TraceTab* t) { return diffSideOf(t).has_value(); };
  if (ready(a) && ready(b)) {
    compare(a, b);
    return;
  }
  // Once both have loaded; a side that fails leaves its reason in its tab and compares nothing.
  auto pending = std::make_shared<QList<QMetaObject::Connection>>();
  auto attempt = [this, a, b, pending, ready] {
    if (!a || !b) return;
    const bool failed = a->state() == views::TraceTab::State::Failed || b->state() == views::TraceTab::State::Failed ||
                        a->state() == views::TraceTab::State::Cancelled || b->state() == views::TraceTab::State::Cancelled;
    if (!failed && !(ready(a) && ready(b))) return;
    for (const auto& c : *pending) disconnect(c);
    if (failed) showStatus(tr("Nothing to compare: a trace did not open."));
    else compare(a, b);
  };
  *pending << connect(a, &views::TraceTab::stateChanged, this, attempt) << connect(b, &views::TraceTab::stateChanged, this, attempt);
  showStatus(tr("Opening the traces to compare…"));
}

void MainWindow::openLiveTab(const QString& name) {
  closeLiveTab();
  if (!panel_->isRunning()) return;
  live_ = addLiveTab(panel_->runner()->outPath(), name);
  connect(live_, &LiveRecordingTab::stopRequested, panel_, &WorkloadPanel::cancel);
  connect(panel_->runner(), &RecorderRunner::fileStarted, live_, &LiveRecordingTab::addAnnouncedFile);
  live_->showConsole();
  live_->console()->setChunks(panel_->runner()->console());
  connect(panel_->runner(), &RecorderRunner::output, live_->console(), &views::ConsoleView::append);
  qCInfo(lcWindow) << "following" << live_->path() << "live";
}

// A rank's file of a distributed recording (OUT.rankN.sawtooth: the merged OUT appears only at the
// end): the other ranks' files being written beside it are drawn with it, a line per rank.
void MainWindow::followSiblingRanks(LiveRecordingTab* live, const QString& path) {
  const QFileInfo info(path);
  const auto opened = recording::parseRankFileName(info.fileName().toStdString());
  if (!opened) return;
  live->addFile(path, opened->rank, -1);
  const QDir dir = info.absoluteDir();
  const QString pattern = QString::fromStdString(opened->stem) + QStringLiteral(".rank*.sawtooth");
  for (const QString& name : dir.entryList({pattern}, QDir::Files, QDir::Name)) {
    const auto sibling = recording::parseRankFileName(name.toStdString());
    const QString file = dir.absoluteFilePath(name);
    if (sibling && sibling->stem == opened->stem && file != path && isBeingWritten(file.toStdString()))
      live->addFile(file, sibling->rank, -1);
  }
}

LiveRecordingTab* MainWindow::addLiveTab(const QString& path, const QString& name) {
  auto* live = new LiveRecordingTab(path, &jobs_);
  const int index = tabs_->addTab(live, tr("● %1 (recording)").arg(name));
  tabs_->setTabToolTip(index, path);
  tabs_->setCurrentIndex(index);
  return live;
}

void MainWindow::closeLiveTab() {
  if (!live_) return;
  live_->stopFollowing();
  const int index = tabs_->indexOf(live_);
  if (index >= 0) tabs_->removeTab(index);
  live_->deleteLater();
  live_ = nullptr;
}

void MainWindow::onRecordingFinished(RecorderRunner::Outcome outcome, const QString& path, const QString& message) {
  // The finished trace takes the live tab's timeline over when it drew this file's summaries.
  std::optional<LiveHandover> handover;
  if (live_ && live_->path() == path) handover = live_->handover();
  closeLiveTab();
  updateActions();
  const QList<views::ConsoleChunk> console = panel_->runner() ? panel_->runner()->console() : QList<views::ConsoleChunk>();
  showStatus(RecorderRunner::summary(outcome, message));
  if (RecorderRunner::leavesTrace(outcome) && !QFileInfo::exists(path) && !leftRankFiles(path.toStdString()).empty()) {
    mergeLeftRanksAndOpen(outcome, path, console);
    return;
  }
  if (!RecorderRunner::leavesTrace(outcome) || !QFileInfo::exists(path)) {
    bool printed = false;
    for (const auto& c : console) printed = printed || !c.text.trimmed().isEmpty();
    if (printed) openConsoleTab(recording_name_, RecorderRunner::summary(outcome, message), console);
    return;
  }
  openRecording(outcome, path, console, handover);
}

void MainWindow::openRecording(RecorderRunner::Outcome outcome, const QString& path,
                               const QList<views::ConsoleChunk>& console, std::optional<LiveHandover> handover) {
  auto* tab = openFile(path, QFileInfo(path).completeBaseName(), std::move(handover));
  bool printed = false;
  for (const auto& c : console) printed = printed || !c.text.isEmpty();
  // A program that failed: its own words (a traceback) come first.
  if (printed) tab->setConsole(console, outcome == RecorderRunner::Outcome::ProgramExited);
  emit recordingOpened(tab, outcome);
}

void MainWindow::mergeLeftRanksAndOpen(RecorderRunner::Outcome outcome, const QString& path, QList<views::ConsoleChunk> console) {
  const auto ranks = leftRankFiles(path.toStdString());
  showStatus(tr("Merging what the %n rank(s) recorded into %1…", nullptr, static_cast<int>(ranks.size())).arg(path));
  jobs_.run<Ok>(
      QString(), tr("Merging the ranks' traces"), this,
      [ranks, out = path.toStdString()](Progress& p) { return mergeLeftRanks(ranks, out, p); },
      [this, outcome, path, console](Ok) { openRecording(outcome, path, console); },
      [this, outcome, ranks, console](const QString& error) {
        // The ranks as they are, each in its tab, with the reason the merge failed.
        showStatus(tr("The ranks' traces could not be merged (%1): each opens on its own.").arg(error));
        for (size_t i = 0; i < ranks.size(); ++i) {
          const QString file = QString::fromStdString(ranks[i].second);
          auto* tab = openFile(file);
          if (i == 0 && !console.isEmpty()) tab->setConsole(console, false);
          emit recordingOpened(tab, outcome);
        }
      });
}

void MainWindow::openConsoleTab(const QString& name, const QString& message, const QList<views::ConsoleChunk>& console) {
  auto* page = new QWidget(tabs_);
  page->setObjectName(QStringLiteral("recordingConsole"));
  auto* label = new QLabel(message.toHtmlEscaped(), page);
  label->setWordWrap(true);
  label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* view = new views::ConsoleView(page);
  view->setChunks(console);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(label);
  layout->addWidget(view, 1);
  const int index = tabs_->addTab(page, tr("%1 (console)").arg(name.isEmpty() ? tr("recording") : name));
  tabs_->setCurrentIndex(index);
}

void MainWindow::openDialog() {
  QSettings settings;
  const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open memory traces"),
                                                          settings.value("lastDirectory").toString(), kTraceFilter);
  for (const QString& f : files) openOrFollow(f);
  if (!files.isEmpty()) settings.setValue("lastDirectory", QFileInfo(files.first()).absolutePath());
}

void MainWindow::closeTab(int index) {
  QWidget* w = tabs_->widget(index);
  if (!w) return;
  tabs_->removeTab(index);
  w->deleteLater();
  if (w == live_) {  // the recording goes on; only its live view closes
    live_->stopFollowing();
    live_ = nullptr;
  }
  if (w != ladder_) QMetaObject::invokeMethod(this, [this] { refreshLadder(); }, Qt::QueuedConnection);
  updateActions();
}

void MainWindow::updateActions() {
  auto* tab = currentTab();
  const bool ready = tab && tab->state() == views::TraceTab::State::Ready;
  const bool compare = currentComparison() && currentComparison()->currentCompare();
  const bool sites = currentComparison() && currentComparison()->currentSites();
  for (QAction* a : needs_trace_) a->setEnabled(ready);
  // A timeline from the summaries alone: the chart, its axis and its zoom, and the table of the view
  // shown (live bytes, modules), not the CSVs of every event.
  if (tab && tab->state() == views::TraceTab::State::Summaries)
    for (QAction* a : {needs_trace_.front(), needs_trace_[1], by_time_, needs_trace_.back()}) a->setEnabled(true);
  if (compare || sites) needs_trace_.front()->setEnabled(true);
  if (sites) needs_trace_[1]->setEnabled(true);
  if (tab && by_time_) {
    const QSignalBlocker block(by_time_);
    by_time_->setChecked(tab->timeline()->xAxisByTime());
  }
  run_->setEnabled(panel_->catalog().has_value() && !panel_->isRunning());
  cancel_->setEnabled(panel_->isRunning());
  record_program_->setEnabled(panel_->runner() && !panel_->isRunning());
}

void MainWindow::cycleTabs(int step) {
  const int n = tabs_->count();
  if (n < 2) return;
  tabs_->setCurrentIndex(((tabs_->currentIndex() + step) % n + n) % n);
}

void MainWindow::updateCentral() { central_->setCurrentWidget(tabs_->count() > 0 ? static_cast<QWidget*>(tabs_) : start_); }

void MainWindow::showStatus(const QString& text) { statusBar()->showMessage(text, 10000); }

void MainWindow::watchExport(const QString& path, bool interactive) {
  // The outcome of this export, once: a dialog for a failure the user asked for, the status line.
  auto once = std::make_shared<QMetaObject::Connection>();
  *once = connect(this, &MainWindow::exportFinished, this, [this, path, interactive, once](const QString& p, const QString& e) {
    if (p != path) return;
    disconnect(*once);
    if (!e.isEmpty() && interactive) QMessageBox::warning(this, tr("Export failed"), e);
    showStatus(e.isEmpty() ? tr("Saved %1").arg(p) : e);
  });
}

bool MainWindow::exportChart(const QString& given) {
  auto* tab = currentTab();
  auto* compare = currentComparison() ? currentComparison()->currentCompare() : nullptr;
  auto* sites = currentComparison() ? currentComparison()->currentSites() : nullptr;
  const bool drawn = tab && (tab->state() == views::TraceTab::State::Ready || tab->state() == views::TraceTab::State::Summaries);
  if (!drawn && !compare && !sites) return false;
  QString path = given;
  if (path.isEmpty()) {
    const QString base = tab ? QFileInfo(tab->path()).completeBaseName() : QStringLiteral("comparison");
    path = QFileDialog::getSaveFileName(this, tr("Export chart"), base + ".png", tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return false;
  }
  if (tab) {
    if (!tab->findChild<TraceController*>()->exportChart(path)) return false;
    watchExport(path, given.isEmpty());
    return true;
  }
  // A comparison or its call sites: drawn now, written in a job.
  QGraphicsView* chart = compare ? static_cast<QGraphicsView*>(compare->timeline()) : sites->chart();
  const bool svg = QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0;
  const QImage image = svg ? QImage() : views::renderViewImage(chart);
  const QByteArray vector = svg ? views::renderViewSvg(chart, {}, compare ? tr("Comparison") : tr("Call sites")) : QByteArray();
  runExport(path, given.isEmpty(), [svg, image, vector, path](Progress&) { return svg ? writeFile(vector, path) : writePng(image, path); });
  return true;
}

void MainWindow::runExport(const QString& path, bool interactive, std::function<Result<Ok>(Progress&)> work) {
  // Exports never supersede each other: each writes its own file.
  jobs_.run<Ok>(
      QString(), tr("Writing %1").arg(QFileInfo(path).fileName()), this, std::move(work),
      [this, path](Ok) { emit exportFinished(path, QString()); }, [this, path](const QString& error) { emit exportFinished(path, error); });
  watchExport(path, interactive);
}

bool MainWindow::exportCsv(const QString& what, const QString& given) {
  auto* tab = currentTab();
  if (auto* sites = currentComparison() ? currentComparison()->currentSites() : nullptr; sites && what == QLatin1String("table")) {
    const auto table = sites->tableData();
    if (!table) return false;
    const QString path = given.isEmpty() ? QFileDialog::getSaveFileName(this, tr("Export call sites as CSV"), QStringLiteral("call-sites.csv"), tr("CSV (*.csv)")) : given;
    if (path.isEmpty()) return false;
    showStatus(tr("Writing %1…").arg(path));
    runExport(path, given.isEmpty(), [table, out = path.toStdString()](Progress&) { return exportTableCsv(table, out); });
    return true;
  }
  const bool on_demand = tab && tab->state() == views::TraceTab::State::Summaries && what == QLatin1String("table");
  if (!tab || (tab->state() != views::TraceTab::State::Ready && !on_demand)) return false;
  QString path = given;
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Export %1 as CSV").arg(what),
                                        QFileInfo(tab->path()).completeBaseName() + "." + what + ".csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return false;
  }
  if (!tab->findChild<TraceController*>()->exportCsv(what, path)) return false;
  showStatus(tr("Writing %1…").arg(path));
  watchExport(path, given.isEmpty());
  return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) openOrFollow(url.toLocalFile());
  event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  if (panel_->isRunning()) panel_->cancel();
  closeLiveTab();
  jobs_.cancelAll();
  QMainWindow::closeEvent(event);
}

}  // namespace sawtooth::app
