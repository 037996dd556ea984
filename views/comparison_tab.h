#pragma once
// A comparison of two traces in one document tab: the timelines overlaid (CompareView) and the
// call sites diffed (DiffSitesView), side by side as the tab's own views, so that neither opens out
// of sight at the far end of the window's tab bar.

#include <QTabWidget>

#include "views/compare_view.h"
#include "views/diff_sites_view.h"

namespace sawtooth::views {

class ComparisonTab : public QTabWidget {
  Q_OBJECT
 public:
  explicit ComparisonTab(QWidget* parent = nullptr);
  CompareView* compareView() const { return compare_; }
  DiffSitesView* sitesView() const { return sites_; }
  // The view shown now: one of the two, the other null.
  CompareView* currentCompare() const;
  DiffSitesView* currentSites() const;
  void showSites();

 private:
  CompareView* compare_;
  DiffSitesView* sites_;
};

}  // namespace sawtooth::views
