#include "views/table_csv.h"

#include <QFile>
#include <QTextStream>

namespace sawtooth::views {

bool writeModelCsv(const QAbstractItemModel& model, const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = QObject::tr("%1: cannot create (%2)").arg(path, f.errorString());
    return false;
  }
  QTextStream out(&f);
  auto quote = [](QString s) {
    if (s.contains(',') || s.contains('"') || s.contains('\n')) s = '"' + s.replace('"', QStringLiteral("\"\"")) + '"';
    return s;
  };
  QStringList header;
  for (int c = 0; c < model.columnCount(); ++c) header << quote(model.headerData(c, Qt::Horizontal).toString());
  out << header.join(',') << '\n';
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < model.columnCount(); ++c) cells << quote(model.index(r, c).data().toString());
    out << cells.join(',') << '\n';
  }
  out.flush();
  if (f.error() != QFile::NoError) {
    if (error) *error = QObject::tr("%1: write failed (%2)").arg(path, f.errorString());
    return false;
  }
  return true;
}

}  // namespace sawtooth::views
