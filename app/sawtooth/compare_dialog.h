#pragma once
// Compare two traces: each side an open trace or a file picked with Browse… (opened first, then
// compared once loaded).

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QPointer>

#include "views/trace_tab.h"

namespace sawtooth::app {

class CompareDialog : public QDialog {
  Q_OBJECT
 public:
  // One side of the comparison: an open trace, or a file to open.
  struct Side {
    QPointer<views::TraceTab> tab;
    QString path;
  };

  // `open`: the traces open now, with the names their tabs show.
  CompareDialog(const QList<QPair<views::TraceTab*, QString>>& open, QWidget* parent = nullptr);
  // Picks a file for side 0 (A) or 1 (B), as Browse… does.
  void setFile(int side, const QString& path);
  Side side(int side) const;
  bool acceptable() const;

 private:
  void browse(int side);
  void updateState();

  QComboBox* sides_[2];
  QDialogButtonBox* buttons_;
};

}  // namespace sawtooth::app
