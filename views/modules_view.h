#pragma once
// Where in the model the memory is (issue 23): at the peak (or the event clicked on the
// fragmentation chart), a headline, the icicle of the module hierarchy — widths are bytes, each
// module's own bytes as leaves coloured by category — and the table per module (parameters,
// gradients, optimizer state, activations, temporaries, its forward's and backward's peak
// increment and time). Double-clicking a row zooms the icicle to that module. A trace without
// modules (a PyTorch snapshot) shows why instead; one of a program recorded without module tracking
// offers to record it again with it. Draws what it is given (setModules); the app
// computes it off the GUI thread.

#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QWidget>
#include <memory>

#include "core/analysis/module_table.h"
#include "views/flame_graph_widget.h"
#include "views/table_model.h"
#include "views/widget_export.h"

namespace sawtooth::views {

class ModulesView : public QWidget {
  Q_OBJECT
 public:
  explicit ModulesView(QWidget* parent = nullptr);
  void setModules(std::shared_ptr<const ModulesAt> modules);
  void setMessage(const QString& text);
  const std::shared_ptr<const ModulesAt>& modules() const { return modules_; }

  QLabel* headline() const { return headline_; }
  // "Record again with modules…": shown for a program recorded without them (record_again).
  QPushButton* recordAgainButton() const { return record_again_; }
  FlameGraphWidget* icicle() const { return icicle_; }
  TableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // The table as core's (what Export table writes, CSV); null when nothing is shown.
  std::shared_ptr<const Table> tableData() const;
  // What Export chart draws (PNG/SVG): the icicle.
  PaintedWidget picture() const;
  // The icicle's node of a table row (in the model's order); UINT32_MAX when it has none (no bytes).
  uint32_t nodeOfRow(int row) const;

 signals:
  // The program of a recording made without modules, to record again with them.
  void recordAgainWithModules(const QStringList& argv, const QString& folder, const QStringList& environment);

 private:
  std::shared_ptr<const ModulesAt> modules_;
  QLabel* headline_;
  QPushButton* record_again_;
  QWidget* panes_;  // the icicle over the table: hidden while there is only a message
  FlameGraphWidget* icicle_;
  TableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
};

}  // namespace sawtooth::views
