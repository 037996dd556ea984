#pragma once
// Writes what a table view shows (every row, every column, the header first) as CSV.

#include <QAbstractItemModel>
#include <QString>

namespace sawtooth::views {

bool writeModelCsv(const QAbstractItemModel& model, const QString& path, QString* error = nullptr);

}  // namespace sawtooth::views
