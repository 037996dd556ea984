#pragma once
// Two traces on one timeline (core/analysis/comparison.h: their series overlaid, each device
// named after its side) above a table of their peak differences, per device and per run. The
// traces line up by allocation event, by time or by step (alignmentChanged asks for a new
// comparison; it arrives through setComparison, computed off the GUI thread, or through setOverlay
// when either trace is read on demand).

#include <QComboBox>
#include <QLabel>
#include <QTableView>
#include <QWidget>
#include <memory>

#include "core/analysis/comparison.h"
#include "views/table_model.h"
#include "views/timeline_chart.h"

namespace sawtooth::views {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void setBusy(const QString& message);
  void setFailed(const QString& message);
  void setComparison(std::shared_ptr<const Comparison> comparison);
  // Either trace read on demand: the timelines from both traces' summaries (the chart asks for
  // each window's frame: timeline()->frameRequested), with the same differences and note.
  void setOverlay(std::shared_ptr<const TimelineOverview> overview, std::shared_ptr<const Table> differences,
                  const QString& note, bool by_time);
  const std::shared_ptr<const Comparison>& comparison() const { return comparison_; }
  Alignment alignment() const;
  void setAlignment(Alignment alignment);  // emits alignmentChanged when it changes

  TimelineChart* timeline() const { return timeline_; }
  QTableView* differences() const { return table_; }
  TableModel* differencesModel() const { return model_; }
  QString noteText() const { return note_->text(); }

 signals:
  void alignmentChanged(sawtooth::Alignment alignment);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void fitTable();

  QLabel* note_;
  QComboBox* align_;
  TimelineChart* timeline_;
  TableModel* model_;
  QTableView* table_;
  std::shared_ptr<const Comparison> comparison_;
};

}  // namespace sawtooth::views
