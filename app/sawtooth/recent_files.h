#pragma once
// The recently opened traces, newest first, kept in QSettings.

#include <QStringList>

namespace sawtooth::app {

class RecentFiles {
 public:
  static constexpr int kMax = 10;
  static QStringList load();
  static void add(const QString& path);
  static void clear();
};

}  // namespace sawtooth::app
