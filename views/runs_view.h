#pragma once
// The runs of a recording as a table: each run's configuration and measurements (timing samples
// summarised), sortable, copyable (Ctrl+C copies the selection as tab-separated text) and
// exportable as CSV.

#include <QAbstractTableModel>
#include <QTableView>
#include <memory>

#include "core/model/trace.h"

namespace sawtooth::views {

class RunsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit RunsTableModel(QObject* parent = nullptr);
  void setTrace(std::shared_ptr<const Trace> trace);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // Plain text of a cell (what copy and CSV export write).
  QString text(int row, int column) const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 private:
  struct Column {
    QString title;
    std::string key;  // a config key or a measurement name
    bool measurement;
    std::string unit;
  };
  std::shared_ptr<const Trace> trace_;
  std::vector<Column> columns_;
};

class RunsView : public QTableView {
  Q_OBJECT
 public:
  explicit RunsView(QWidget* parent = nullptr);
  void setTrace(std::shared_ptr<const Trace> trace);
  RunsTableModel* runsModel() const { return model_; }
  QString selectionAsText() const;

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  RunsTableModel* model_;
};

}  // namespace sawtooth::views
