#include "app/sawtooth/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace sawtooth::app {
namespace {
const char* kKey = "recentFiles";
}

QStringList RecentFiles::load() { return QSettings().value(kKey).toStringList(); }

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = load();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMax) list.removeLast();
  QSettings().setValue(kKey, list);
}

void RecentFiles::clear() { QSettings().remove(kKey); }

}  // namespace sawtooth::app
