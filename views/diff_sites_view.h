#pragma once
// The "Call sites" part of a comparison of two traces: what changed at the peak in words, a
// diverging bar chart of the sites that changed most (growth to the right in red, shrinking to the
// left in green; hover for both sides' bytes) and every row in a table. Draws the TraceDiff it is
// given (setDiff: the diff, its table and the chart's rows, all from core); the app computes it
// off the GUI thread.

#include <QChartView>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QWidget>
#include <memory>

#include "core/analysis/site_tables.h"
#include "views/table_model.h"

namespace sawtooth::views {

class DivergingBarChart : public QChartView {
  Q_OBJECT
 public:
  static constexpr size_t kSites = 15;

  explicit DivergingBarChart(QWidget* parent = nullptr);
  void setDiff(std::shared_ptr<const CallSiteDiff> diff);
  // Sites on the chart, top to bottom (largest growth first).
  QStringList sites() const { return sites_; }
  QBarSet* grewSet() const { return grew_; }
  QBarSet* shrankSet() const { return shrank_; }
  // What the tooltip says for the bar of a site (index in sites()).
  QString describe(int site) const;
  // The site whose bar is under the pointer (index in sites()), -1 when none.
  int hoveredSite() const { return hovered_; }
  QBarCategoryAxis* siteAxis() const { return site_axis_; }

 protected:
  bool viewportEvent(QEvent* event) override;

 private:
  std::shared_ptr<const TraceDiff> diff_;
  std::vector<size_t> rows_;  // top to bottom
  QStringList sites_;
  QHorizontalStackedBarSeries* series_ = nullptr;
  QBarSet* grew_ = nullptr;
  QBarSet* shrank_ = nullptr;
  QBarCategoryAxis* site_axis_ = nullptr;
  int hovered_ = -1;
};

class DiffSitesView : public QWidget {
  Q_OBJECT
 public:
  explicit DiffSitesView(QWidget* parent = nullptr);
  void setDiff(std::shared_ptr<const CallSiteDiff> diff);
  void setMessage(const QString& text);
  // The rows as core's table (what Export table writes); null before a diff arrives.
  std::shared_ptr<const Table> tableData() const;

  QLabel* summary() const { return summary_; }
  DivergingBarChart* chart() const { return chart_; }
  TableModel* model() const { return model_; }
  QTableView* table() const { return table_; }

 private:
  std::shared_ptr<const CallSiteDiff> diff_;
  QLabel* summary_;
  DivergingBarChart* chart_;
  TableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
};

}  // namespace sawtooth::views
