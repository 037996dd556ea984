#pragma once
// The runs of a recording as a table (core/analysis/trace_report.h's runsTable): each run's
// configuration and measurements, sortable by value, copyable (Ctrl+C copies the selection as
// tab-separated text).

#include <QSortFilterProxyModel>
#include <QTableView>
#include <memory>

#include "core/analysis/table.h"
#include "views/table_model.h"

namespace sawtooth::views {

class RunsView : public QTableView {
  Q_OBJECT
 public:
  explicit RunsView(QWidget* parent = nullptr);
  void setTable(std::shared_ptr<const Table> table);
  TableModel* runsModel() const { return model_; }
  const std::shared_ptr<const Table>& table() const { return table_; }
  QString selectionAsText() const;

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  std::shared_ptr<const Table> table_;
  TableModel* model_;
  QSortFilterProxyModel* proxy_;
};

}  // namespace sawtooth::views
