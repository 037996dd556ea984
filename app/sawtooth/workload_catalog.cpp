#include "app/sawtooth/workload_catalog.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include "views/qt_format.h"

namespace sawtooth::app {

QString ParameterInfo::validate(const QString& value) const {
  if (type == QLatin1String("choice"))
    return choices.contains(value) ? QString() : QObject::tr("choose one of %1").arg(choices.join(QStringLiteral(", ")));
  bool ok = false;
  double number = 0;
  if (type == QLatin1String("int")) {
    static const QRegularExpression integer(QStringLiteral("^-?\\d+$"));
    ok = integer.match(value.trimmed()).hasMatch();
    number = value.toDouble();
    if (!ok) return QObject::tr("a whole number");
  } else {
    number = value.toDouble(&ok);
    if (!ok) return QObject::tr("a number");
  }
  if ((min && number < *min) || (max && number > *max))
    return QObject::tr("between %1 and %2").arg(min ? QString::number(*min) : QStringLiteral("−∞"),
                                                max ? QString::number(*max) : QStringLiteral("∞"));
  return {};
}

const WorkloadInfo* WorkloadCatalog::find(const QString& name) const {
  for (const auto& w : workloads)
    if (w.name == name) return &w;
  return nullptr;
}

QString WorkloadCatalog::deviceDescription() const {
  if (!cuda_available || !environment.contains(QStringLiteral("device_name"))) return {};
  const qint64 total = environment.value(QStringLiteral("device_total_bytes")).toString().toLongLong();
  return QStringLiteral("%1, %2").arg(environment.value(QStringLiteral("device_name")).toString(), views::bytesText(total));
}

std::optional<WorkloadCatalog> WorkloadCatalog::parse(const QByteArray& json, QString* error) {
  QJsonParseError parse_error;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &parse_error);
  if (!doc.isObject()) {
    if (error) *error = QObject::tr("unreadable workload list (%1)").arg(parse_error.errorString());
    return std::nullopt;
  }
  WorkloadCatalog catalog;
  const QJsonObject root = doc.object();
  catalog.cuda_available = root.value(QStringLiteral("cuda_available")).toBool();
  catalog.cuda_devices = root.value(QStringLiteral("cuda_devices")).toInt();
  catalog.environment = root.value(QStringLiteral("environment")).toObject();
  for (const QJsonValue& w : root.value(QStringLiteral("workloads")).toArray()) {
    const QJsonObject o = w.toObject();
    WorkloadInfo info{o.value(QStringLiteral("name")).toString(), o.value(QStringLiteral("title")).toString(),
                      o.value(QStringLiteral("description")).toString(),
                      o.value(QStringLiteral("distributed")).toBool(), {}};
    for (const QJsonValue& p : o.value(QStringLiteral("parameters")).toArray()) {
      const QJsonObject po = p.toObject();
      ParameterInfo param;
      param.name = po.value(QStringLiteral("name")).toString();
      param.type = po.value(QStringLiteral("type")).toString();
      param.description = po.value(QStringLiteral("description")).toString();
      param.default_gpu = po.value(QStringLiteral("default_gpu")).toString();
      param.default_cpu = po.value(QStringLiteral("default_cpu")).toString();
      for (const QJsonValue& c : po.value(QStringLiteral("choices")).toArray()) param.choices << c.toString();
      if (po.contains(QStringLiteral("min"))) param.min = po.value(QStringLiteral("min")).toDouble();
      if (po.contains(QStringLiteral("max"))) param.max = po.value(QStringLiteral("max")).toDouble();
      info.parameters << param;
    }
    catalog.workloads << info;
  }
  if (catalog.workloads.isEmpty()) {
    if (error) *error = QObject::tr("the recorder lists no workloads");
    return std::nullopt;
  }
  return catalog;
}

QString findRecorder() {
  const QString env = qEnvironmentVariable("SAWTOOTH_RECORD");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/sawtooth-record");
  return QFileInfo(beside).isExecutable() ? beside : QString();
}

}  // namespace sawtooth::app
