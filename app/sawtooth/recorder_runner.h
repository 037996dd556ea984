#pragma once
// Runs sawtooth-record as a child process: a CUDA out-of-memory, a crash or a hung kernel in a
// workload never takes the app down, and Cancel is a signal to the child (which closes its trace,
// so the partial recording still opens). Progress arrives as the recorder's JSON lines, read with
// core/recording's parser; the outcome comes from its exit code (core/recording/exit_code.h).

#include <QFile>
#include <QObject>
#include <QPair>
#include <QProcess>
#include <QStringDecoder>
#include <QStringList>
#include <QTimer>

#include "views/console_view.h"

namespace sawtooth::app {

class RecorderRunner : public QObject {
  Q_OBJECT
 public:
  // ProgramExited: a recorded program ended with a non-zero status or a signal of its own; its
  // trace is kept (and opened), the status is in the message. ProgramNotStarted: the command was
  // not found or could not be executed.
  enum class Outcome { Ok, OutOfMemory, Cancelled, Interrupted, BadArguments, Failed, Crashed, ProgramExited, ProgramNotStarted };
  Q_ENUM(Outcome)

  struct Request {
    QString workload;
    QList<QPair<QString, QString>> parameters;
    QString device = QStringLiteral("auto");
    QString out;
    int ranks = 1;  // distributed workloads: processes, one per rank
    QStringList capture;  // --steps, --window-events, --sample-interval (CaptureOptionsForm)
    // A program to record instead of a workload (sawtooth-record -- COMMAND): its argv, the folder
    // it starts in, KEY=VALUE entries added to the app's environment, and recorder options
    // (--stacks none, --cpu on). Progress lines go to out + ".progress.jsonl", read as they come.
    QStringList command;
    QString working_dir;
    QStringList environment;
    QStringList program_options;
    bool isProgram() const { return !command.isEmpty(); }
  };

  // What the recording printed: the recorded program's stdout and stderr (a workload's stderr and
  // any line of its stdout that is not progress), with the recorder's own messages, in order.
  using ConsoleChunk = views::ConsoleChunk;
  // The console keeps its last this many characters.
  static constexpr qsizetype kMaxConsoleChars = 4 << 20;

  explicit RecorderRunner(QString recorder, QObject* parent = nullptr);
  ~RecorderRunner() override;

  bool start(const Request& request);
  // The recorder's command line for `request`.
  static QStringList arguments(const Request& request);
  // SIGTERM (the recorder finishes its batch and closes the file), SIGKILL if it has not exited
  // after `grace_ms`.
  void cancel(int grace_ms = 10000);
  bool isRunning() const;
  qint64 processId() const { return process_.processId(); }
  const QString& outPath() const { return request_.out; }
  // What happened, to follow "The recording ": "was cancelled", "ran out of GPU memory".
  static QString describe(Outcome outcome);
  // One sentence for the status lines: "The recording ended with the program's failure: the
  // program exited with status 3." (the message, a fragment, follows a colon, not a full stop).
  static QString summary(Outcome outcome, const QString& message);
  // Whether a trace file is worth opening after this outcome.
  static bool leavesTrace(Outcome outcome);
  // The outcome of a recorder that exited normally with `exit_code`.
  static Outcome outcomeOf(int exit_code, bool cancel_requested);
  // The outcome of `sawtooth-record -- COMMAND` that exited normally with `exit_code`.
  static Outcome programOutcomeOf(int exit_code, bool cancel_requested);
  static QString progressPath(const QString& out) { return out + QStringLiteral(".progress.jsonl"); }
  // The current (or last) recording's console, oldest first.
  const QList<ConsoleChunk>& console() const { return console_; }

 signals:
  void started(QString message);
  // `text` names the run once: "bf16: step 3 of 20".
  void progress(double fraction, QString text);
  // A process of the recording writes a file of its own (a rank, a program's process): the live
  // view follows it. rank and pid are -1 where the line does not say.
  void fileStarted(QString path, int rank, int pid);
  // A chunk of the console as it arrives.
  void output(QString text, bool error);
  void finished(sawtooth::app::RecorderRunner::Outcome outcome, QString out_path, QString message);

 private:
  void readOutput();
  void readProgress();
  void readErrors();
  bool handleLine(const QByteArray& line);  // false: not a progress line
  void onFinished(int exit_code, QProcess::ExitStatus status);
  void addConsole(const QString& text, bool error);

  QString recorder_;
  QProcess process_;
  QTimer kill_timer_;
  QTimer progress_timer_;  // a recorded program's progress file, polled
  QFile progress_file_;
  QByteArray stderr_tail_;  // the last few KB: a program may print without end
  QList<ConsoleChunk> console_;
  qsizetype console_chars_ = 0;
  QStringDecoder stdout_text_{QStringDecoder::Utf8};
  QStringDecoder stderr_text_{QStringDecoder::Utf8};
  Request request_;
  QByteArray buffer_;
  QString error_message_;
  bool cancel_requested_ = false;
};

}  // namespace sawtooth::app
