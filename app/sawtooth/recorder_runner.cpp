#include "app/sawtooth/recorder_runner.h"

#include <QDir>

#include <sys/prctl.h>

#include <csignal>

#include "app/sawtooth/app_logging.h"
#include "core/recording/exit_code.h"
#include "core/recording/progress_line.h"

namespace sawtooth::app {
namespace {

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

}  // namespace

RecorderRunner::RecorderRunner(QString recorder, QObject* parent) : QObject(parent), recorder_(std::move(recorder)) {
  connect(&process_, &QProcess::readyReadStandardOutput, this, &RecorderRunner::readOutput);
  connect(&process_, &QProcess::readyReadStandardError, this, &RecorderRunner::readErrors);
  // An app that dies (killed, crashed) takes its recording with it: the recorder gets SIGTERM, as from
  // Stop, and writes what it has; an endless workload never runs on unattended.
  process_.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
  progress_timer_.setInterval(200);
  connect(&progress_timer_, &QTimer::timeout, this, &RecorderRunner::readProgress);
  connect(&process_, &QProcess::finished, this, &RecorderRunner::onFinished);
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      qCWarning(lcRecorder) << "could not start" << recorder_ << process_.errorString();
      emit finished(Outcome::Failed, request_.out, tr("could not start %1 (%2)").arg(recorder_, process_.errorString()));
    }
  });
  kill_timer_.setSingleShot(true);
  connect(&kill_timer_, &QTimer::timeout, this, [this] {
    if (isRunning()) process_.kill();
  });
}

RecorderRunner::~RecorderRunner() {
  // Whoever listens may be half destroyed already (the window closing with a recording running):
  // the recorder is stopped without telling anyone.
  process_.disconnect(this);
  blockSignals(true);
  if (isRunning()) {
    process_.terminate();
    if (!process_.waitForFinished(5000)) process_.kill();
    process_.waitForFinished(2000);
  }
}

bool RecorderRunner::isRunning() const { return process_.state() != QProcess::NotRunning; }

QStringList RecorderRunner::arguments(const Request& request) {
  if (request.isProgram())
    return QStringList{QStringLiteral("--out"), request.out, QStringLiteral("--progress"), progressPath(request.out)} +
           request.program_options + QStringList{QStringLiteral("--")} + request.command;
  QStringList args{QStringLiteral("--workload"), request.workload, QStringLiteral("--device"), request.device,
                   QStringLiteral("--out"), request.out};
  for (const auto& [k, v] : request.parameters) args << QStringLiteral("--set") << QStringLiteral("%1=%2").arg(k, v);
  if (request.ranks > 1) args << QStringLiteral("--ranks") << QString::number(request.ranks);
  return args + request.capture;
}

bool RecorderRunner::start(const Request& request) {
  if (isRunning()) return false;
  request_ = request;
  buffer_.clear();
  error_message_.clear();
  cancel_requested_ = false;
  const QStringList args = arguments(request);
  qCDebug(lcRecorder) << "starting" << recorder_ << args;
  stderr_tail_.clear();
  console_.clear();
  console_chars_ = 0;
  stdout_text_ = QStringDecoder(QStringDecoder::Utf8);
  stderr_text_ = QStringDecoder(QStringDecoder::Utf8);
  progress_file_.close();
  process_.setProgram(recorder_);
  process_.setArguments(args);
  process_.setProcessChannelMode(QProcess::SeparateChannels);
  process_.setWorkingDirectory(request.working_dir);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& entry : request.environment) {
    const qsizetype eq = entry.indexOf(QLatin1Char('='));
    if (eq > 0) env.insert(entry.left(eq), entry.mid(eq + 1));
  }
  process_.setProcessEnvironment(env);
  if (request.isProgram()) {
    progress_file_.setFileName(progressPath(request.out));
    QFile::remove(progress_file_.fileName());
    progress_timer_.start();
  }
  process_.start();
  return true;
}

void RecorderRunner::cancel(int grace_ms) {
  if (!isRunning()) return;
  cancel_requested_ = true;
  process_.terminate();
  kill_timer_.start(grace_ms);
}

void RecorderRunner::addConsole(const QString& text, bool error) {
  if (text.isEmpty()) return;
  if (!console_.isEmpty() && console_.back().error == error) console_.back().text += text;
  else console_.append({text, error});
  console_chars_ += text.size();
  while (console_chars_ > kMaxConsoleChars && !console_.isEmpty()) {
    ConsoleChunk& first = console_.front();
    const qsizetype excess = console_chars_ - kMaxConsoleChars;
    if (first.text.size() <= excess) {
      console_chars_ -= first.text.size();
      console_.removeFirst();
    } else {
      first.text.remove(0, excess);
      console_chars_ -= excess;
    }
  }
  emit output(text, error);
}

void RecorderRunner::readErrors() {
  constexpr qsizetype kTail = 4096;
  const QByteArray bytes = process_.readAllStandardError();
  stderr_tail_ += bytes;
  if (stderr_tail_.size() > kTail) stderr_tail_ = stderr_tail_.right(kTail);
  addConsole(stderr_text_.decode(bytes), true);
}

void RecorderRunner::readProgress() {
  if (!progress_file_.isOpen() && !progress_file_.open(QIODevice::ReadOnly)) return;  // not written yet
  buffer_ += progress_file_.readAll();
  qsizetype nl;
  while ((nl = buffer_.indexOf('\n')) >= 0) {
    handleLine(buffer_.left(nl).trimmed());
    buffer_.remove(0, nl + 1);
  }
  if (static_cast<size_t>(buffer_.size()) > recording::kMaxProgressLineBytes) buffer_.clear();
}

void RecorderRunner::readOutput() {
  if (request_.isProgram()) {  // the program's own output (its progress comes in a file)
    addConsole(stdout_text_.decode(process_.readAllStandardOutput()), false);
    return;
  }
  buffer_ += process_.readAllStandardOutput();
  qsizetype nl;
  while ((nl = buffer_.indexOf('\n')) >= 0) {
    const QByteArray line = buffer_.left(nl + 1);
    if (!handleLine(line.trimmed())) addConsole(stdout_text_.decode(line), false);
    buffer_.remove(0, nl + 1);
  }
  // A runaway line without an end is not progress: drop it rather than hold it.
  if (static_cast<size_t>(buffer_.size()) > recording::kMaxProgressLineBytes) buffer_.clear();
}

bool RecorderRunner::handleLine(const QByteArray& bytes) {
  const auto line = recording::parseProgressLine(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
  if (!line) {
    qCDebug(lcRecorder) << "not a progress line:" << bytes.left(200);
    return false;
  }
  namespace stage = recording::stage;
  const std::string& s = line->stage;
  if (s == stage::kStart) {
    emit started(fromStd(line->message));
  } else if (s == stage::kRun) {
    emit progress(line->fraction.value_or(0.0), fromStd(recording::describeProgress(*line)));
  } else if (s == stage::kError) {
    error_message_ = fromStd(line->message);
  } else if (error_message_.isEmpty() && s == std::string(stage::kRankPrefix) + std::string(stage::kError)) {
    error_message_ = fromStd(recording::describeProgress(*line));  // the launcher's own error line follows
  }
  if (!line->file.empty() && line->file.size() < 4096) {
    // Relative to where the recorder runs, as it was given the output.
    const QString file = QDir(request_.working_dir.isEmpty() ? QDir::currentPath() : request_.working_dir)
                             .absoluteFilePath(fromStd(line->file));
    emit fileStarted(file, line->rank.value_or(-1), line->pid.value_or(-1));
  }
  return true;
}

RecorderRunner::Outcome RecorderRunner::programOutcomeOf(int exit_code, bool cancel_requested) {
  if (exit_code == 0) return Outcome::Ok;
  if (exit_code == recording::kProgramNotRecorded) return Outcome::Failed;
  if (exit_code == recording::kProgramCannotExecute || exit_code == recording::kProgramNotFound)
    return Outcome::ProgramNotStarted;
  if (cancel_requested && exit_code > 128) return Outcome::Cancelled;  // the program died by our Stop
  return Outcome::ProgramExited;
}

RecorderRunner::Outcome RecorderRunner::outcomeOf(int exit_code, bool cancel_requested) {
  using recording::ExitCode;
  switch (recording::exitCodeFrom(exit_code).value_or(ExitCode::Internal)) {
    case ExitCode::Ok: return Outcome::Ok;
    case ExitCode::Usage: return Outcome::BadArguments;
    case ExitCode::OutOfMemory: return Outcome::OutOfMemory;
    case ExitCode::Interrupted: return cancel_requested ? Outcome::Cancelled : Outcome::Interrupted;
    case ExitCode::OutputUnwritable: return Outcome::Failed;  // the error line says why (exists, locked, disk full)
    case ExitCode::Internal: return Outcome::Failed;
  }
  return Outcome::Failed;
}

void RecorderRunner::onFinished(int exit_code, QProcess::ExitStatus status) {
  kill_timer_.stop();
  readOutput();
  if (request_.isProgram()) {
    progress_timer_.stop();
    readProgress();
    progress_file_.close();
  }
  readErrors();
  const QString stderr_text = QString::fromUtf8(stderr_tail_).trimmed();
  const QString last_stderr = stderr_text.section('\n', -1);
  qCDebug(lcRecorder) << "recorder ended" << exit_code << status << last_stderr;
  Outcome outcome;
  QString message;
  if (status == QProcess::CrashExit) {
    outcome = cancel_requested_ ? Outcome::Cancelled : Outcome::Crashed;
    message = cancel_requested_ ? tr("cancelled; the recorder had to be killed")
                                : tr("the recorder crashed (%1)").arg(process_.errorString());
    if (!stderr_text.isEmpty() && outcome == Outcome::Crashed) message += QStringLiteral(": ") + last_stderr;
  } else {
    outcome = request_.isProgram() ? programOutcomeOf(exit_code, cancel_requested_) : outcomeOf(exit_code, cancel_requested_);
    message = error_message_;
    if (outcome == Outcome::ProgramExited)
      message = exit_code > 128 ? tr("the program was killed by signal %1").arg(exit_code - 128)
                                : tr("the program exited with status %1").arg(exit_code);
    if (message.isEmpty()) {
      const QByteArray utf8 = last_stderr.toUtf8();
      message = fromStd(recording::recorderMessage(std::string_view(utf8.constData(), static_cast<size_t>(utf8.size()))));
    }
  }
  emit finished(outcome, request_.out, message);
}

QString RecorderRunner::describe(Outcome outcome) {
  switch (outcome) {
    case Outcome::Ok: return tr("finished");
    case Outcome::OutOfMemory: return tr("ran out of GPU memory");
    case Outcome::Cancelled: return tr("was cancelled");
    case Outcome::Interrupted: return tr("was interrupted");
    case Outcome::BadArguments: return tr("refused its parameters");
    case Outcome::ProgramNotStarted: return tr("could not start the program");
    case Outcome::Failed: return tr("failed");
    case Outcome::Crashed: return tr("crashed");
    case Outcome::ProgramExited: return tr("ended with the program's failure");
  }
  return {};
}

QString RecorderRunner::summary(Outcome outcome, const QString& message) {
  const QString fragment = message.trimmed();
  if (fragment.isEmpty()) return tr("The recording %1.").arg(describe(outcome));
  const bool closed = fragment.endsWith(QLatin1Char('.')) || fragment.endsWith(QLatin1Char('!')) ||
                      fragment.endsWith(QLatin1Char('?'));
  return tr("The recording %1: %2%3").arg(describe(outcome), fragment, closed ? QString() : QStringLiteral("."));
}

bool RecorderRunner::leavesTrace(Outcome outcome) {
  return outcome == Outcome::Ok || outcome == Outcome::OutOfMemory || outcome == Outcome::Cancelled ||
         outcome == Outcome::Interrupted || outcome == Outcome::Crashed || outcome == Outcome::ProgramExited;
}

}  // namespace sawtooth::app
