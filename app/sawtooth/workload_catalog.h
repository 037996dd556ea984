#pragma once
// What the recorder offers, read from `sawtooth-record --list --json` (the one source of truth for
// the workloads, their parameters and defaults), and where the recorder is.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace sawtooth::app {

struct ParameterInfo {
  QString name, type, description, default_gpu, default_cpu;
  QStringList choices;
  std::optional<double> min, max;
  // An error message when `value` is not acceptable, empty when it is.
  QString validate(const QString& value) const;
};

struct WorkloadInfo {
  QString name, title, description;
  bool distributed = false;  // runs as several processes, one per rank (sawtooth-record --ranks N)
  QList<ParameterInfo> parameters;
};

struct WorkloadCatalog {
  QList<WorkloadInfo> workloads;
  bool cuda_available = false;
  int cuda_devices = 0;
  QJsonObject environment;  // tool, torch, CUDA runtime/driver, device name and memory

  const WorkloadInfo* find(const QString& name) const;
  QString deviceDescription() const;  // "NVIDIA H200, 150.1 GB" or empty
  static std::optional<WorkloadCatalog> parse(const QByteArray& json, QString* error);
};

// The sawtooth-record next to this executable, or $SAWTOOTH_RECORD; empty when there is none.
QString findRecorder();

}  // namespace sawtooth::app
