#include "views/comparison_tab.h"

namespace sawtooth::views {

ComparisonTab::ComparisonTab(QWidget* parent)
    : QTabWidget(parent), compare_(new CompareView(this)), sites_(new DiffSitesView(this)) {
  setDocumentMode(true);
  addTab(compare_, tr("Timeline"));
  addTab(sites_, tr("Call sites"));
  setTabToolTip(1, tr("Live bytes at each trace's peak, call site by call site"));
}

CompareView* ComparisonTab::currentCompare() const { return currentWidget() == compare_ ? compare_ : nullptr; }

DiffSitesView* ComparisonTab::currentSites() const { return currentWidget() == sites_ ? sites_ : nullptr; }

void ComparisonTab::showSites() { setCurrentWidget(sites_); }

}  // namespace sawtooth::views
