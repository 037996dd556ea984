#include "views/table_csv.h"

#include <QFile>
#include <QTextStream>

namespace sawtooth::views {

namespace {

QString csvField(QString s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n')) s = '"' + s.replace('"', QStringLiteral("\"\"")) + '"';
  return s;
}

QString csvLine(const QStringList& fields) {
  QStringList quoted;
  quoted.reserve(fields.size());
  for (const QString& f : fields) quoted << csvField(f);
  return quoted.join(',');
}

}  // namespace

bool writeCsv(const QString& path, const QStringList& header, int rowCount,
              const std::function<QStringList(int)>& row, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = QObject::tr("%1: cannot create (%2)").arg(path, f.errorString());
    return false;
  }
  QTextStream out(&f);
  out << csvLine(header) << '\n';
  for (int r = 0; r < rowCount; ++r) out << csvLine(row(r)) << '\n';
  out.flush();
  if (f.error() != QFile::NoError) {
    if (error) *error = QObject::tr("%1: write failed (%2)").arg(path, f.errorString());
    return false;
  }
  return true;
}

bool writeModelCsv(const QAbstractItemModel& model, const QString& path, QString* error) {
  QStringList header;
  for (int c = 0; c < model.columnCount(); ++c) header << model.headerData(c, Qt::Horizontal).toString();
  return writeCsv(path, header, model.rowCount(), [&model](int r) {
    QStringList cells;
    for (int c = 0; c < model.columnCount(); ++c) cells << model.index(r, c).data().toString();
    return cells;
  }, error);
}

}  // namespace sawtooth::views
