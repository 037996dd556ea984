#include "app/sawtooth/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

#include "app/sawtooth/recent_files.h"

namespace sawtooth::app {
namespace {

const QString kTraceFilter = QObject::tr(
    "Memory traces (*.pickle *.pickle.gz *.pkl *.json *.json.gz *.sawtooth);;PyTorch snapshots (*.pickle *.pickle.gz "
    "*.pkl);;torch.profiler traces (*.json *.json.gz);;Sawtooth traces (*.sawtooth);;All files (*)");

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), tabs_(new QTabWidget(this)) {
  setWindowTitle(tr("Sawtooth"));
  setAcceptDrops(true);
  tabs_->setTabsClosable(true);
  tabs_->setMovable(true);
  tabs_->setDocumentMode(true);
  setCentralWidget(tabs_);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { updateActions(); });
  buildMenus();
  statusBar()->showMessage(tr("Open a PyTorch memory snapshot, a torch.profiler trace or a .sawtooth file (Ctrl+O), "
                              "or drop one here."));
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  if (!settings.contains("window/geometry")) resize(1280, 820);
  updateActions();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  needs_trace_ << file->addAction(tr("Export chart as PNG or SVG…"), QKeySequence(tr("Ctrl+E")), this, [this] { exportChart(); });
  needs_trace_ << file->addAction(tr("Export series as CSV…"), this, [this] { exportCsv(QStringLiteral("series")); });
  needs_trace_ << file->addAction(tr("Export events as CSV…"), this, [this] { exportCsv(QStringLiteral("events")); });
  file->addSeparator();
  needs_trace_ << file->addAction(tr("&Close tab"), QKeySequence::Close, this, [this] { closeTab(tabs_->currentIndex()); });
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

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

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Sawtooth"), this, [this] {
    QMessageBox::about(this, tr("About Sawtooth"),
                       tr("<h3>Sawtooth %1</h3><p>GPU memory profiler and visualizer for PyTorch and LibTorch.</p>"
                          "<p>Qt %2</p>")
                           .arg(QStringLiteral(SAWTOOTH_VERSION), QString::fromLatin1(qVersion())));
  });
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList files = RecentFiles::load();
  for (const QString& f : files) recent_menu_->addAction(f, this, [this, f] { openFile(f); });
  if (files.isEmpty()) recent_menu_->addAction(tr("(none)"))->setEnabled(false);
  recent_menu_->addSeparator();
  recent_menu_->addAction(tr("Clear"), this, [this] {
    RecentFiles::clear();
    rebuildRecentMenu();
  });
}

views::TraceTab* MainWindow::openFile(const QString& path) {
  auto* tab = new views::TraceTab(QFileInfo(path).absoluteFilePath(), tabs_);
  const int index = tabs_->addTab(tab, tab->title());
  tabs_->setTabToolTip(index, tab->path());
  tabs_->setCurrentIndex(index);
  connect(tab, &views::TraceTab::stateChanged, this, [this, tab](views::TraceTab::State state) {
    if (state == views::TraceTab::State::Ready) {
      RecentFiles::add(tab->path());
      rebuildRecentMenu();
      showStatus(tr("Opened %1").arg(tab->path()));
    } else if (state == views::TraceTab::State::Failed) {
      showStatus(tr("Could not open %1").arg(tab->path()));
    }
    updateActions();
  });
  tab->startLoading();
  return tab;
}

views::TraceTab* MainWindow::currentTab() const { return qobject_cast<views::TraceTab*>(tabs_->currentWidget()); }

void MainWindow::openDialog() {
  QSettings settings;
  const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open memory traces"),
                                                          settings.value("lastDirectory").toString(), kTraceFilter);
  for (const QString& f : files) openFile(f);
  if (!files.isEmpty()) settings.setValue("lastDirectory", QFileInfo(files.first()).absolutePath());
}

void MainWindow::closeTab(int index) {
  QWidget* w = tabs_->widget(index);
  if (!w) return;
  tabs_->removeTab(index);
  w->deleteLater();
  updateActions();
}

void MainWindow::updateActions() {
  auto* tab = currentTab();
  const bool ready = tab && tab->state() == views::TraceTab::State::Ready;
  for (QAction* a : needs_trace_) a->setEnabled(ready);
  if (tab && by_time_) {
    const QSignalBlocker block(by_time_);
    by_time_->setChecked(tab->timeline()->xAxisByTime());
  }
}

void MainWindow::showStatus(const QString& text) { statusBar()->showMessage(text, 8000); }

bool MainWindow::exportChart(const QString& given) {
  auto* tab = currentTab();
  if (!tab) return false;
  QString path = given;
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Export chart"), QFileInfo(tab->path()).completeBaseName() + ".png",
                                        tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return false;
  }
  const bool ok = tab->exportChart(path);
  if (!ok && given.isEmpty()) QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(path));
  showStatus(ok ? tr("Saved %1").arg(path) : tr("Could not write %1").arg(path));
  return ok;
}

bool MainWindow::exportCsv(const QString& what, const QString& given) {
  auto* tab = currentTab();
  if (!tab) return false;
  QString path = given;
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Export %1 as CSV").arg(what),
                                        QFileInfo(tab->path()).completeBaseName() + "." + what + ".csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return false;
  }
  const QString error = tab->exportCsv(what, path);
  if (!error.isEmpty() && given.isEmpty()) QMessageBox::warning(this, tr("Export failed"), error);
  showStatus(error.isEmpty() ? tr("Saved %1").arg(path) : error);
  return error.isEmpty();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) openFile(url.toLocalFile());
  event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings().setValue("window/geometry", saveGeometry());
  QMainWindow::closeEvent(event);
}

}  // namespace sawtooth::app
