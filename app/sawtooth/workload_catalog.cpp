#include "app/sawtooth/workload_catalog.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace sawtooth::app {

QString findRecorder() {
  const QString env = qEnvironmentVariable("SAWTOOTH_RECORD");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/sawtooth-record");
  return QFileInfo(beside).isExecutable() ? beside : QString();
}

}  // namespace sawtooth::app
