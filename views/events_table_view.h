#pragma once
// A table view for millions of rows: it draws only the rows in sight, straight from the model, with
// a horizontal header for the columns (resize, sort indicator) and no per-row bookkeeping.
// QTableView keeps a vertical header with an entry per row: with 10 M events every new set of rows
// (a filter, a sort) cost a few hundred milliseconds of the GUI thread, and fitting the columns to
// their contents as much again. Selection is one row; Enter or a double click activates it.

#include <QAbstractItemModel>
#include <QAbstractScrollArea>
#include <QHeaderView>
#include <QPointer>

namespace sawtooth::views {

class EventsTableView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit EventsTableView(QWidget* parent = nullptr);

  void setModel(QAbstractItemModel* model);
  QAbstractItemModel* model() const { return model_; }
  QHeaderView* horizontalHeader() const { return header_; }

  // Clicking a column header does the same: the model's sort() is asked (it may answer later).
  void sortByColumn(int column, Qt::SortOrder order);
  void resizeColumnsToContents();  // from the rows in sight, not from every row
  int rowHeight() const;
  int currentRow() const { return current_; }
  void setCurrentRow(int row);  // -1: none
  void scrollToRow(int row);    // centred
  int firstVisibleRow() const;
  int rowAt(int y) const;       // -1 below the last row

 signals:
  void activated(int row);
  void currentRowChanged(int row);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  void updateGeometries();
  int visibleRows() const;
  int rows() const;

  QPointer<QAbstractItemModel> model_;
  QHeaderView* header_;
  int current_ = -1;
};

}  // namespace sawtooth::views
