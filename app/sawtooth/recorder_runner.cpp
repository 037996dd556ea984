#include "app/sawtooth/recorder_runner.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sawtooth::app {

RecorderRunner::RecorderRunner(QString recorder, QObject* parent) : QObject(parent), recorder_(std::move(recorder)) {
  connect(&process_, &QProcess::readyReadStandardOutput, this, &RecorderRunner::readOutput);
  connect(&process_, &QProcess::finished, this, &RecorderRunner::onFinished);
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      emit finished(Outcome::Failed, request_.out, tr("could not start %1 (%2)").arg(recorder_, process_.errorString()));
    }
  });
  kill_timer_.setSingleShot(true);
  connect(&kill_timer_, &QTimer::timeout, this, [this] {
    if (isRunning()) process_.kill();
  });
}

RecorderRunner::~RecorderRunner() {
  if (isRunning()) {
    process_.terminate();
    if (!process_.waitForFinished(5000)) process_.kill();
    process_.waitForFinished(2000);
  }
}

bool RecorderRunner::isRunning() const { return process_.state() != QProcess::NotRunning; }

bool RecorderRunner::start(const Request& request) {
  if (isRunning()) return false;
  request_ = request;
  buffer_.clear();
  error_message_.clear();
  cancel_requested_ = false;
  QStringList args{QStringLiteral("--workload"), request.workload, QStringLiteral("--device"), request.device,
                   QStringLiteral("--out"), request.out};
  for (const auto& [k, v] : request.parameters) args << QStringLiteral("--set") << QStringLiteral("%1=%2").arg(k, v);
  if (request.ranks > 1) args << QStringLiteral("--ranks") << QString::number(request.ranks);
  process_.setProgram(recorder_);
  process_.setArguments(args);
  process_.setProcessChannelMode(QProcess::SeparateChannels);
  process_.start();
  return true;
}

void RecorderRunner::cancel(int grace_ms) {
  if (!isRunning()) return;
  cancel_requested_ = true;
  process_.terminate();
  kill_timer_.start(grace_ms);
}

void RecorderRunner::readOutput() {
  buffer_ += process_.readAllStandardOutput();
  qsizetype nl;
  while ((nl = buffer_.indexOf('\n')) >= 0) {
    const QByteArray line = buffer_.left(nl).trimmed();
    buffer_.remove(0, nl + 1);
    const QJsonObject msg = QJsonDocument::fromJson(line).object();
    const QString stage = msg.value(QStringLiteral("stage")).toString();
    const QString message = msg.value(QStringLiteral("message")).toString();
    if (stage == QLatin1String("start")) emit started(message);
    else if (stage == QLatin1String("run"))
      emit progress(msg.value(QStringLiteral("fraction")).toDouble(), msg.value(QStringLiteral("run")).toString(), message);
    else if (stage == QLatin1String("error")) error_message_ = message;
  }
}

void RecorderRunner::onFinished(int exit_code, QProcess::ExitStatus status) {
  kill_timer_.stop();
  readOutput();
  const QString stderr_text = QString::fromUtf8(process_.readAllStandardError()).trimmed();
  Outcome outcome;
  QString message;
  if (status == QProcess::CrashExit) {
    outcome = cancel_requested_ ? Outcome::Cancelled : Outcome::Crashed;
    message = cancel_requested_ ? tr("cancelled; the recorder had to be killed")
                                : tr("the recorder crashed (%1)").arg(process_.errorString());
  } else {
    switch (exit_code) {
      case 0: outcome = Outcome::Ok; break;
      case 2: outcome = Outcome::BadArguments; break;
      case 3: outcome = Outcome::OutOfMemory; break;
      case 4: outcome = cancel_requested_ ? Outcome::Cancelled : Outcome::Interrupted; break;
      default: outcome = Outcome::Failed; break;
    }
    message = error_message_.isEmpty() ? stderr_text.section('\n', -1) : error_message_;
    if (message.startsWith(QLatin1String("sawtooth-record: "))) message = message.mid(17);
  }
  if (!stderr_text.isEmpty() && outcome == Outcome::Crashed) message += QStringLiteral(": ") + stderr_text.section('\n', -1);
  emit finished(outcome, request_.out, message);
}

QString RecorderRunner::describe(Outcome outcome) {
  switch (outcome) {
    case Outcome::Ok: return tr("finished");
    case Outcome::OutOfMemory: return tr("ran out of GPU memory");
    case Outcome::Cancelled: return tr("cancelled");
    case Outcome::Interrupted: return tr("interrupted");
    case Outcome::BadArguments: return tr("refused its parameters");
    case Outcome::Failed: return tr("failed");
    case Outcome::Crashed: return tr("crashed");
  }
  return {};
}

bool RecorderRunner::leavesTrace(Outcome outcome) {
  return outcome == Outcome::Ok || outcome == Outcome::OutOfMemory || outcome == Outcome::Cancelled ||
         outcome == Outcome::Interrupted || outcome == Outcome::Crashed;
}

}  // namespace sawtooth::app
