#pragma once
// Writes what a table view shows (every row, every column, the header first) as CSV.

#include <QAbstractItemModel>
#include <QString>
#include <QStringList>

#include <functional>

namespace sawtooth::views {

bool writeModelCsv(const QAbstractItemModel& model, const QString& path, QString* error = nullptr);
// The header, then rowCount rows from row(r); every field quoted where CSV needs it.
bool writeCsv(const QString& path, const QStringList& header, int rowCount,
              const std::function<QStringList(int)>& row, QString* error = nullptr);

}  // namespace sawtooth::views
