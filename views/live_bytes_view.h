#pragma once
// Live bytes at the peak (or at a chosen event) by call site: a headline, the flame graph of
// frames (click to zoom, double-click to zoom out) and the table by the user's innermost frame and
// category. Draws what it is given (setLiveBytes); the app computes it off the GUI thread.

#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QWidget>
#include <memory>

#include "core/analysis/live_bytes.h"
#include "views/flame_graph_widget.h"
#include "views/table_model.h"
#include "views/widget_export.h"

namespace sawtooth::views {

class LiveBytesView : public QWidget {
  Q_OBJECT
 public:
  explicit LiveBytesView(QWidget* parent = nullptr);
  void setLiveBytes(std::shared_ptr<const LiveBytes> live);
  void setMessage(const QString& text);
  const std::shared_ptr<const LiveBytes>& liveBytes() const { return live_; }

  QLabel* headline() const { return headline_; }
  FlameGraphWidget* flameGraph() const { return flame_; }
  TableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // The table as core's (what Export table writes); null when nothing is shown.
  std::shared_ptr<const Table> tableData() const;
  // What Export chart draws: the flame graph.
  PaintedWidget picture() const;

 private:
  std::shared_ptr<const LiveBytes> live_;
  QLabel* headline_;
  FlameGraphWidget* flame_;
  TableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
};

}  // namespace sawtooth::views
