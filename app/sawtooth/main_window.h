#pragma once
// The main window: one tab per open trace; open by menu, recent files, drag and drop or the
// command line; exports act on the current tab.

#include <QMainWindow>
#include <QMenu>
#include <QTabWidget>

#include "views/trace_tab.h"

namespace sawtooth::app {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  views::TraceTab* openFile(const QString& path);
  views::TraceTab* currentTab() const;
  QTabWidget* tabs() const { return tabs_; }
  int tabCount() const { return tabs_->count(); }

  // File dialogs are skipped when a path is given (tests, scripts).
  bool exportChart(const QString& path = {});
  bool exportCsv(const QString& what, const QString& path = {});

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void openDialog();
  void rebuildRecentMenu();
  void closeTab(int index);
  void updateActions();
  void showStatus(const QString& text);

  QTabWidget* tabs_;
  QMenu* recent_menu_ = nullptr;
  QList<QAction*> needs_trace_;
  QAction* by_time_ = nullptr;
};

}  // namespace sawtooth::app
