#pragma once
// The seed chapter's ladder of remedies: first with this machine's numbers (core/analysis/
// experiment_results.h's ladder), each rung linked to the chart it came from; then the ladder for
// one open recording (core/analysis/ladder.h): each rung's predicted peak and step time, whether it
// fits a device of the chosen size and the largest batch that would, measured runs of the rung
// beside with the error, the diagnosis that picks where to start, and the selected row's reasoning.
// The app computes the report off the GUI thread; the view only shows it.

#include <QLabel>
#include <QWidget>
#include <memory>
#include <vector>

#include "core/analysis/experiment_results.h"
#include "core/analysis/ladder.h"

class QComboBox;
class QDoubleSpinBox;
class QTableView;
class QSpinBox;
class QTextBrowser;

namespace sawtooth::views {

class TableModel;

class LadderView : public QWidget {
  Q_OBJECT
 public:
  explicit LadderView(QWidget* parent = nullptr);
  void setRungs(std::vector<LadderRung> rungs);
  const std::vector<LadderRung>& rungs() const { return rungs_; }
  QString text() const;

  // The recordings the program ladder can start from (the open traces, by tab name); the current
  // choice is kept when it is still there.
  void setSources(const QStringList& names);
  int source() const;
  // 0: the recorded device's memory.
  int64_t deviceMemory() const;
  void setDeviceMemory(int64_t bytes);
  // The devices the sharding rungs spread over; 0: the run's world size, or 2.
  int shardDevices() const;
  void setShardDevices(int devices);
  // A ring all-reduce's bus bandwidth between them, GB/s; 0: from the recorded device's name.
  double linkBandwidth() const;
  void setLinkBandwidth(double gb_per_s);
  void setReport(std::shared_ptr<const LadderReport> report);
  void setReportError(const QString& message);
  const LadderReport* report() const { return report_.get(); }
  const TableModel* programTable() const { return model_; }
  // The summary and the selected row's reasoning, as shown.
  QString programText() const;
  void selectRow(int row);

 signals:
  void chartRequested(QString workload, QString run);
  // The user picked another recording, device size, device count or link: the app computes a new
  // report.
  void programLadderRequested(int source, qint64 device_memory, int shard_devices, double link_gb_per_s);

 private:
  void showDetails(int row);
  void request();

  QLabel* body_;
  std::vector<LadderRung> rungs_;
  QComboBox* sources_;
  QDoubleSpinBox* memory_gb_;
  QSpinBox* devices_;
  QDoubleSpinBox* link_gb_;
  QLabel* summary_;
  QTableView* table_;
  TableModel* model_;
  QTextBrowser* details_;
  std::shared_ptr<const LadderReport> report_;
};

}  // namespace sawtooth::views
