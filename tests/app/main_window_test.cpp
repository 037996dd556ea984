// The window driven as a user would, headless: files open in tabs through the job runner, exports
// run as jobs, the events table filters and sorts off the GUI thread, and the recorder's contract
// (core/recording) is exercised against a stand-in recorder script that speaks it.

#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QLocale>
#include <QtTest>
#include <map>
#include <set>

#include "app/sawtooth/appearance.h"
#include "app/sawtooth/headless_export.h"
#include "app/sawtooth/main_window.h"
#include "app/sawtooth/program_dialog.h"
#include "app/sawtooth/trace_controller.h"
#include "app/sawtooth/reading_limits.h"
#include "app/sawtooth/recent_files.h"
#include "core/io/native_format.h"
#include "core/io/native_writer.h"
#include "core/io/trace_loader.h"
#include "core/recording/workload_list.h"

using namespace sawtooth;
using sawtooth::views::TraceTab;

namespace {

// A recorder without LibTorch: it lists two workloads from core/recording's own document and,
// asked to run, speaks its contract:
// - precision: prints the progress lines of a run and then refuses a parameter, as the real one does;
// - data-parallel (--ranks N): each rank writes its file (a copy of a recording) beside the output,
//   then it runs until stopped, when it ends interrupted without merging them;
// - a program (-- COMMAND): prints on stdout and a traceback on stderr, leaves a trace, exits 1.
QString writeStandInRecorder(const QTemporaryDir& dir, bool cuda) {
  recording::WorkloadList list;
  list.workloads.push_back({"precision",
                            "Mixed precision",
                            "fp32, TF32, bf16, fp16",
                            {{"steps", "int", "timed steps", "20", "3", {}, 1, 1000}},
                            false});
  list.workloads.push_back({"data-parallel", "Data parallel", "ranks", {}, true});
  list.cuda_available = cuda;
  list.cuda_devices = cuda ? 1 : 0;
  if (cuda) list.environment = {{"device_name", "NVIDIA H200"}, {"device_total_bytes", "150000000000"}};
  QFile json(dir.filePath(QStringLiteral("list.json")));
  if (!json.open(QIODevice::WriteOnly)) qFatal("cannot write the list");
  json.write(QByteArray::fromStdString(recording::toJson(list)));
  json.close();
  const QString script = dir.filePath(QStringLiteral("sawtooth-record"));
  QFile f(script);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write the script");
  f.write(QStringLiteral("#!/bin/sh\n"
                         "if [ \"$1\" = --list ]; then cat '%1'; exit 0; fi\n"
                         "out=; ranks=1; program=\n"
                         "while [ $# -gt 0 ]; do case \"$1\" in\n"
                         "  --out) out=$2; shift 2;; --ranks) ranks=$2; shift 2;; --) program=1; shift; break;; *) shift;;\n"
                         "esac; done\n"
                         "if [ \"$1\" = missing-program ]; then echo 'sawtooth-record: missing-program: not found' >&2; exit 127; fi\n"
                         "if [ -n \"$program\" ]; then\n"
                         "  echo 'epoch 1: loss 0.93'\n"
                         "  printf 'Traceback (most recent call last):\\n  File \"train.py\", line 3\\nValueError: the batch is empty\\n' >&2\n"
                         "  cp '%2' \"$out\"; exit 1\n"
                         "fi\n"
                         "if [ \"$ranks\" -gt 1 ]; then\n"
                         "  trap 'exit 4' TERM\n"
                         "  echo '{\"stage\":\"start\",\"message\":\"data-parallel on the CPU\"}'\n"
                         "  r=0; while [ $r -lt $ranks ]; do cp '%2' \"${out%.sawtooth}.rank$r.sawtooth\"; r=$((r+1)); done\n"
                         "  while :; do sleep 0.1; done\n"
                         "fi\n"
                         "echo '{\"stage\":\"start\",\"message\":\"precision on the CPU\"}'\n"
                         "echo '{\"stage\":\"run\",\"run\":\"bf16\",\"step\":3,\"steps\":20,\"fraction\":0.4,"
                         "\"message\":\"bf16: step 3 of 20\"}'\n"
                         "sleep 1\n"
                         "echo 'sawtooth-record: steps=0: must be between 1 and 1000' >&2\n"
                         "exit 2\n")
              .arg(json.fileName(), QStringLiteral(SAWTOOTH_SAMPLES "/anatomy.sawtooth"))
              .toUtf8());
  f.close();
  f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
  return script;
}

// Two ranks' files being recorded in `dir` (train.rank0.sawtooth, train.rank1.sawtooth), rank r
// holding the first 50 + 50 r events of `source` in one committed batch; the writers are returned
// open (the recording goes on). Fewer than two when one could not be written.
std::vector<std::unique_ptr<NativeWriter>> rankFilesBeingRecorded(const QTemporaryDir& dir, const Trace& source) {
  std::vector<std::unique_ptr<NativeWriter>> writers;
  for (size_t rank : {0, 1}) {
    const QString path = dir.filePath(QStringLiteral("train.rank%1.sawtooth").arg(rank));
    auto writer =
        NativeWriter::create(path.toStdString(), OutputClaim::Existing::Refuse, NativeWriterOptions{.recording = true});
    if (!writer.ok() || !(*writer)->beginBatch()) return writers;
    for (const DeviceInfo& d : source.devices)
      if (!(*writer)->writeDevice(d)) return writers;
    if (!(*writer)->appendEventsAt(source.events, 0, 50 + 50 * rank, 0) || !(*writer)->commitBatch()) return writers;
    writers.push_back(std::move(*writer));
  }
  return writers;
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT
  static QString data(const char* name) { return QStringLiteral(SAWTOOTH_TEST_DATA "/") + name; }

  static bool waitIdle(app::MainWindow& w) { return QTest::qWaitFor([&] { return w.jobs()->isIdle(); }, 60000); }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("SawtoothTest"));
    app::RecentFiles::clear();
    QSettings().setValue(QStringLiteral("firstStartDone"), true);  // no sample tabs in these tests
    qRegisterMetaType<TraceTab*>();
  }

  void opensATraceShowsItsPeakAndExports() {
    app::MainWindow w{QString()};
    w.show();
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    QCOMPARE(w.tabCount(), 1);
    QCOMPARE(w.tabs()->tabText(0), QStringLiteral("anatomy_adam_snapshot.pickle"));
    QCOMPARE(tab->timeline()->peakPoint(0).y(), 572522496.0);
    QVERIFY2(tab->summaryText().contains(QStringLiteral("572.5 MB")), qPrintable(tab->summaryText()));
    QVERIFY(tab->summaryText().contains(QStringLiteral("at event 105")));
    QCOMPARE(tab->events()->model()->rowCount(), 352);
    QVERIFY(tab->noticeText().isEmpty());
    QVERIFY(app::RecentFiles::load().contains(QFileInfo(data("anatomy_adam_snapshot.pickle")).absoluteFilePath()));

    QTemporaryDir dir;
    QSignalSpy exported(&w, &app::MainWindow::exportFinished);
    QVERIFY(w.exportChart(dir.filePath("chart.png")));
    QVERIFY(w.exportChart(dir.filePath("chart.svg")));
    QVERIFY(w.exportCsv(QStringLiteral("events"), dir.filePath("events.csv")));
    QVERIFY(w.exportCsv(QStringLiteral("series"), dir.filePath("series.csv")));
    QVERIFY(waitIdle(w));
    QCOMPARE(exported.count(), 4);
    for (const auto& args : exported) QVERIFY2(args.at(1).toString().isEmpty(), qPrintable(args.at(1).toString()));
    QVERIFY(!QImage(dir.filePath("chart.png")).isNull());
    QVERIFY(QFileInfo(dir.filePath("chart.svg")).size() > 1000);
    QFile events(dir.filePath("events.csv"));
    QVERIFY(events.open(QIODevice::ReadOnly));
    QCOMPARE(events.readAll().count('\n'), 353);
    QVERIFY(QFileInfo(dir.filePath("series.csv")).size() > 1000);
  }

  void filtersSortsAndExportsTheEventsTableOffTheGuiThread() {
    app::MainWindow w{QString()};
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    tab->events()->filterEdit()->setText(QStringLiteral("free_completed"));
    QTRY_VERIFY(!tab->events()->waitingForRows() && tab->events()->model()->rowCount() < 352);
    const int freed = tab->events()->model()->rowCount();
    for (int r = 0; r < freed; ++r)
      QCOMPARE(tab->events()->model()->index(r, views::EventsTableModel::Action).data().toString(), QStringLiteral("free_completed"));
    tab->events()->table()->sortByColumn(views::EventsTableModel::Size, Qt::DescendingOrder);
    QVERIFY(waitIdle(w));
    const auto& sizes = tab->analysis()->trace().events.sizes();
    for (int r = 1; r < freed; ++r)
      QVERIFY(sizes[static_cast<size_t>(tab->events()->model()->eventAt(r - 1))] >=
              sizes[static_cast<size_t>(tab->events()->model()->eventAt(r))]);
    // "Export table" writes the rows shown, in their order, as raw numbers with units in the header.
    QTemporaryDir dir;
    QVERIFY(w.exportCsv(QStringLiteral("table"), dir.filePath("table.csv")));
    QVERIFY(waitIdle(w));
    QFile csv(dir.filePath("table.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QCOMPARE(lines.size(), freed + 2);  // header, rows, the empty string after the last newline
    QVERIFY(lines[0].contains("size_bytes"));
    QVERIFY(lines[0].contains("t_ns"));
    QVERIFY2(!lines[1].contains(" MB") && !lines[1].contains("µs"), lines[1].constData());
    QCOMPARE(lines[1].split(',')[0].toLongLong(), tab->events()->model()->eventAt(0));
  }

  void anomaliesAreShownUnderTheSummary() {
    app::MainWindow w{QString()};
    TraceTab* tab = w.openFile(data("synthetic_window_streams.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    const auto& anomalies = tab->analysis()->trace().anomalies;
    QVERIFY(!anomalies.empty());
    const QString first = QString::fromUtf8(describe(anomalies.front().kind).data(),
                                            static_cast<qsizetype>(describe(anomalies.front().kind).size()));
    QVERIFY2(tab->noticeText().contains(first), qPrintable(tab->noticeText()));
    QVERIFY(tab->noticeText().contains(QStringLiteral("kept as recorded")));
  }

  // A recording started anywhere else (a terminal, a script) is followed live when opened, and
  // opens as a trace in the same place once its recorder lets go of the file.
  void aFileBeingRecordedIsFollowedLiveThenOpens() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("elsewhere.sawtooth"));
    auto writer = NativeWriter::create(path.toStdString(), OutputClaim::Existing::Refuse, NativeWriterOptions{.recording = true});
    QVERIFY(writer.ok());
    auto source = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
    QVERIFY(source.ok());
    QVERIFY((*writer)->beginBatch());
    for (const DeviceInfo& d : source->devices) QVERIFY((*writer)->writeDevice(d));
    QVERIFY((*writer)->appendEventsAt(source->events, 0, 100, 0));
    QVERIFY((*writer)->commitBatch());

    app::MainWindow w{QString()};
    w.resize(1000, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openFile(data("anatomy_adam_snapshot.pickle"));
    w.openOrFollow(path);
    QCOMPARE(w.tabCount(), 2);
    auto* live = qobject_cast<app::LiveRecordingTab*>(w.tabs()->widget(1));
    QVERIFY(live);
    // Another process's recording prints nowhere the app reads: no console, the chart has the tab.
    QVERIFY(!live->console()->isVisibleTo(live));
    // Where there is one (a recording the app started) it takes a quarter, not the half its text
    // editor's size hint asked for, empty while a workload prints nothing.
    live->showConsole();
    QTRY_VERIFY(live->console()->isVisible() && live->console()->height() > 0);
    QVERIFY2(live->chart()->height() >= 2 * live->console()->height(),
             qPrintable(QStringLiteral("chart %1, console %2").arg(live->chart()->height()).arg(live->console()->height())));
    // The chart draws from the summaries the recorder writes: the follower's rows stop there, the
    // timeline goes on growing (no 20 M-event limit any more).
    QCOMPARE(w.tabs()->currentWidget(), live);
    QVERIFY(w.tabs()->tabText(1).contains(QStringLiteral("recording")));
    QTRY_VERIFY_WITH_TIMEOUT(live->summaries() != nullptr && live->eventsShown() == 100, 10000);
    const auto summaries = live->summaries();
    const uint64_t rows_held = live->follower()->timeline().events();
    QVERIFY(live->chart()->overview());
    QTRY_VERIFY_WITH_TIMEOUT(live->chart()->frame() != nullptr && !live->chart()->frameComputing(), 10000);
    // The user zooms in, away from the latest moment.
    const double lo = live->chart()->window().boundsLo(), hi = lo + live->chart()->window().width() / 4;
    live->chart()->zoomTo(lo, hi);
    QVERIFY((*writer)->beginBatch());
    QVERIFY((*writer)->appendEventsAt(source->events, 100, source->events.size(), 100));
    QVERIFY((*writer)->commitBatch());
    QTRY_COMPARE_WITH_TIMEOUT(live->eventsShown(), uint64_t(source->events.size()), 10000);
    QVERIFY2(live->statusText().contains(QLocale().toString(qulonglong(source->events.size()))), qPrintable(live->statusText()));
    QCOMPARE(live->follower()->timeline().events(), rows_held);
    QCOMPARE(live->chart()->window().lo(), lo);  // the zoom kept while it grew
    QCOMPARE(live->chart()->window().hi(), hi);
    QVERIFY(w.tabs()->widget(1) == live);  // still recording: still live

    // The recorder lets go: the tab is the finished trace, its timeline the live one's (the same
    // summaries, not opened or read again) at the user's zoom, the other views loading behind it.
    QVERIFY((*writer)->finish());
    writer->reset();
    QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<TraceTab*>(w.tabs()->widget(1)) != nullptr, 10000);
    QCOMPARE(w.tabCount(), 2);
    auto* tab = qobject_cast<TraceTab*>(w.tabs()->widget(1));
    QCOMPARE(tab->findChild<app::TraceController*>()->summaryTimeline(), summaries);
    QTRY_VERIFY_WITH_TIMEOUT(tab->overview() != nullptr, 10000);
    QVERIFY(tab->timeline()->xAxisByTime());
    QCOMPARE(tab->timeline()->window().lo(), lo);
    QCOMPARE(tab->timeline()->window().hi(), hi);
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    QCOMPARE(tab->analysis()->trace().events.size(), source->events.size());
    QCOMPARE(tab->timeline()->window().lo(), lo);
    QCOMPARE(tab->timeline()->window().hi(), hi);
    // A file nobody writes opens as a trace at once.
    QVERIFY(!w.followRecording(data("anatomy_adam_snapshot.pickle")));
  }

  // Opening one rank's file of a distributed recording made elsewhere (a terminal's
  // `sawtooth-record -- torchrun ...`) follows the other ranks' files beside it too.
  void aRankFileBeingRecordedBringsItsSiblingRanks() {
    QTemporaryDir dir;
    auto source = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
    QVERIFY(source.ok());
    std::vector<std::unique_ptr<NativeWriter>> writers = rankFilesBeingRecorded(dir, *source);
    QCOMPARE(writers.size(), size_t{2});
    // A finished file of the same name pattern is not a recording: it is not followed.
    QFile done(dir.filePath(QStringLiteral("train.rank7.sawtooth")));
    QVERIFY(done.open(QIODevice::WriteOnly));
    done.close();

    app::MainWindow w{QString()};
    auto* live = w.followRecording(dir.filePath(QStringLiteral("train.rank1.sawtooth")));
    QVERIFY(live);
    QCOMPARE(live->follower()->files(), 2);
    // Drawn from the rows or, once both files' summaries open, from those: a device per rank.
    QTRY_COMPARE_WITH_TIMEOUT(live->eventsShown(), uint64_t{150}, 10000);
    QStringList labels;
    for (const auto& d : live->chart()->overview()->devices) labels << QString::fromStdString(d.name).section(u' ', 0, 1);
    labels.sort();
    QCOMPARE(labels, (QStringList{QStringLiteral("rank 0"), QStringLiteral("rank 1")}));
    // Both recorders let go: the tab becomes the opened rank's trace.
    for (auto& writer : writers) QVERIFY(writer->finish());
    writers.clear();
    QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<TraceTab*>(w.tabs()->widget(0)) != nullptr, 10000);
    QVERIFY(w.tabs()->tabToolTip(0).contains(QStringLiteral("rank1")) ||
            qobject_cast<TraceTab*>(w.tabs()->widget(0))->path().contains(QStringLiteral("rank1")));
  }

  // The ranks' files each hold their summaries: the chart draws from them, as for one file, and
  // the timeline grows past the rows' limit (issue 25: the 20 M-event live limit goes away).
  void rankFilesBeingRecordedDrawFromTheirSummariesPastTheRowsLimit() {
    QTemporaryDir dir;
    auto source = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
    QVERIFY(source.ok());
    const size_t all = source->events.size();
    std::vector<std::unique_ptr<NativeWriter>> writers = rankFilesBeingRecorded(dir, *source);
    QCOMPARE(writers.size(), size_t{2});

    app::MainWindow w{QString()};
    w.resize(1000, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* live = w.followRecording(dir.filePath(QStringLiteral("train.rank1.sawtooth")));
    QVERIFY(live);
    live->follower()->setMaxEvents(20);  // the rows stop at 20 events; the summaries do not
    QTRY_VERIFY_WITH_TIMEOUT(live->fromSummaries() && live->eventsShown() == 150, 10000);
    QVERIFY(!live->summaries());  // not one file's
    QVERIFY(!live->handover());   // the finished recording is another file (the ranks merged)
    const auto overview = live->chart()->overview();
    QVERIFY(overview);
    std::map<std::string, std::set<DeviceId>> by_rank;  // each file's devices, named after it
    std::set<DeviceId> ids;
    for (const auto& d : overview->devices) {
      by_rank[d.name.substr(0, d.name.find(" · "))].insert(d.device);
      ids.insert(d.device);
    }
    QCOMPARE(ids.size(), overview->devices.size());
    QCOMPARE(by_rank.size(), size_t{2});
    QVERIFY(by_rank.count("rank 0") && by_rank.count("rank 1"));
    QVERIFY2(live->statusText().contains(QStringLiteral("2 files")), qPrintable(live->statusText()));

    // The chart's frame over both files' devices has the lines of both.
    auto drawsBoth = [&] {
      const TimelineFrame* frame = live->chart()->frame();
      if (!frame || live->chart()->frameComputing()) return false;
      std::set<std::string> ranks;
      for (const auto& line : frame->lines)
        for (const auto& [rank, devices] : by_rank)
          if (!line.points.empty() && devices.count(line.device)) ranks.insert(rank);
      return ranks.size() == 2;
    };
    QTRY_VERIFY_WITH_TIMEOUT(drawsBoth(), 10000);

    // Both ranks go on: the timeline grows with them, the rows stay where they stopped.
    for (size_t rank : {0, 1}) {
      QVERIFY(writers[rank]->beginBatch());
      QVERIFY(writers[rank]->appendEventsAt(source->events, 50 + 50 * rank, all, 50 + 50 * rank));
      QVERIFY(writers[rank]->commitBatch());
    }
    QTRY_COMPARE_WITH_TIMEOUT(live->eventsShown(), uint64_t{2 * all}, 10000);
    QVERIFY(live->follower()->timeline().events() <= 20);
    QVERIFY2(live->statusText().contains(QLocale().toString(qulonglong(2 * all))), qPrintable(live->statusText()));
    for (auto& writer : writers) QVERIFY(writer->finish());
    writers.clear();
    QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<TraceTab*>(w.tabs()->widget(0)) != nullptr, 10000);
  }

  // A file that joins a recording already drawn from its summaries (a process of the program
  // starts writing its own) is drawn from the moment its summaries open; until then the chart goes
  // on with the first file's (the rows stopped when the summaries drew: falling back to them froze
  // the chart).
  void aFileJoiningARecordingDrawnFromSummariesIsDrawnFromItsOwn() {
    QTemporaryDir dir;
    auto source = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
    QVERIFY(source.ok());
    auto record = [&](const QString& path, size_t events) -> std::unique_ptr<NativeWriter> {
      auto writer = NativeWriter::create(path.toStdString(), OutputClaim::Existing::Refuse,
                                         NativeWriterOptions{.recording = true});
      if (!writer.ok() || !(*writer)->beginBatch()) return nullptr;
      for (const DeviceInfo& d : source->devices)
        if (!(*writer)->writeDevice(d)) return nullptr;
      if (!(*writer)->appendEventsAt(source->events, 0, events, 0) || !(*writer)->commitBatch()) return nullptr;
      return std::move(*writer);
    };
    const QString first = dir.filePath(QStringLiteral("run.sawtooth"));
    const QString second = dir.filePath(QStringLiteral("run.pid1234.sawtooth"));
    auto writer = record(first, 100);
    QVERIFY(writer);
    app::MainWindow w{QString()};
    auto* live = w.followRecording(first);
    QVERIFY(live);
    QTRY_VERIFY_WITH_TIMEOUT(live->summaries() != nullptr && live->eventsShown() == 100, 10000);
    live->addFile(second, -1, 1234);  // not written yet
    QTest::qWait(600);                // a few polls
    QVERIFY(live->fromSummaries());
    QCOMPARE(live->eventsShown(), uint64_t{100});
    auto joined = record(second, 50);
    QVERIFY(joined);
    QTRY_VERIFY_WITH_TIMEOUT(live->eventsShown() == 150 && !live->summaries(), 10000);
    QStringList files;
    for (const auto& d : live->chart()->overview()->devices) files << QString::fromStdString(d.name).section(u' ', 0, 1);
    QVERIFY2(files.contains(QStringLiteral("pid 1234")), qPrintable(files.join(u',')));
    QVERIFY(writer->finish());
    QVERIFY(joined->finish());
  }

  // On a 1600-pixel screen the window grew to 1,654–1,760 px while a recording ran (its status line
  // named the whole path), and its smallest size was 971×673.
  void theWindowFitsASmallScreenEvenWhileRecording() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QString(120, QLatin1Char('f')) + QStringLiteral("/") + QString(120, QLatin1Char('g')));
    QVERIFY(QDir().mkpath(folder));
    const QString path = folder + QStringLiteral("/a-recording-whose-name-goes-on-and-on-") + QString(80, QLatin1Char('n')) +
                         QStringLiteral(".sawtooth");
    auto writer = NativeWriter::create(path.toStdString(), OutputClaim::Existing::Refuse, NativeWriterOptions{.recording = true});
    QVERIFY(writer.ok());
    auto source = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
    QVERIFY(source.ok());
    QVERIFY((*writer)->beginBatch());
    for (const DeviceInfo& d : source->devices) QVERIFY((*writer)->writeDevice(d));
    QVERIFY((*writer)->appendEventsAt(source->events, 0, 100, 0));
    QVERIFY((*writer)->commitBatch());

    // The workload panel with its form, every sample's views and a snapshot's.
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    w.resize(800, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY_WITH_TIMEOUT(w.workloadPanel()->catalog().has_value(), 20000);
    QCOMPARE(w.openSamples(), 5);
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    QVERIFY(waitIdle(w));
    for (TraceTab* t : w.traceTabs()) QCOMPARE(t->state(), TraceTab::State::Ready);
    auto fits = [&] {
      const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
      return least.width() <= 800 && least.height() <= 600;
    };
    QVERIFY2(fits(), qPrintable(QStringLiteral("%1×%2").arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
    auto* live = w.followRecording(path);
    QVERIFY(live);
    QTRY_VERIFY_WITH_TIMEOUT(live->statusText().contains(QStringLiteral("100 events")), 10000);
    QCoreApplication::processEvents();
    QVERIFY2(fits(), qPrintable(QStringLiteral("%1×%2").arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
    QCOMPARE(w.width(), 800);
    QVERIFY(live->statusText().contains(QStringLiteral("a-recording-whose-name")));
    QVERIFY((*writer)->finish());
  }

  void aCancelledDistributedRunOpensWhatItsRanksRecorded() {
    QTemporaryDir dir;
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    auto* panel = w.workloadPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->catalog().has_value(), 20000);
    panel->selectWorkload(QStringLiteral("data-parallel"));
    panel->setRanks(2);
    QSignalSpy opened(&w, &app::MainWindow::recordingOpened);
    QVERIFY(panel->run());
    const QString out = panel->runner()->outPath();
    QString stem = out;
    stem.chop(QStringLiteral(".sawtooth").size());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(stem + QStringLiteral(".rank1.sawtooth")), 10000);
    QTest::qWait(300);  // both copies complete
    panel->cancel();
    QVERIFY(opened.wait(30000));
    QCOMPARE(opened.first().at(1).value<app::RecorderRunner::Outcome>(), app::RecorderRunner::Outcome::Cancelled);
    auto* tab = opened.first().at(0).value<TraceTab*>();
    QCOMPARE(tab->path(), QFileInfo(out).absoluteFilePath());
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 30000);
    QVERIFY(tab->report()->ranks.has_value());
    QVERIFY(tab->hasView(TraceTab::View::Ranks));
    QCOMPARE(tab->analysis()->trace().runs.size(), 2 * loadTrace(SAWTOOTH_SAMPLES "/anatomy.sawtooth")->runs.size());
    QVERIFY(panel->statusText().contains(QStringLiteral("was cancelled")));
  }

  void aRecordedProgramsOutputIsKeptInItsConsole() {
    QTemporaryDir dir;
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    auto* panel = w.workloadPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->catalog().has_value(), 20000);
    QSignalSpy opened(&w, &app::MainWindow::recordingOpened);
    app::RecorderRunner::Request request;
    request.command = {QStringLiteral("python3"), QStringLiteral("train.py")};
    QVERIFY(panel->runProgram(request));
    QVERIFY(w.liveTab());
    QVERIFY(w.liveTab()->console()->isVisibleTo(w.liveTab()));
    QVERIFY(opened.wait(30000));
    QCOMPARE(opened.first().at(1).value<app::RecorderRunner::Outcome>(), app::RecorderRunner::Outcome::ProgramExited);
    // One sentence: "…failure: the program exited with status 1.", not "…failure. the program…".
    QVERIFY2(panel->statusText().startsWith(QStringLiteral("The recording ended with the program's failure: the program exited")) &&
                 panel->statusText().endsWith(QLatin1Char('.')),
             qPrintable(panel->statusText()));
    auto* tab = opened.first().at(0).value<TraceTab*>();
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 30000);
    // The program failed: its traceback is the first thing shown.
    QVERIFY(tab->hasView(TraceTab::View::Console));
    QCOMPARE(tab->currentView(), TraceTab::View::Console);
    const QString text = tab->console()->text();
    QVERIFY2(text.contains(QStringLiteral("epoch 1: loss 0.93")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("ValueError: the batch is empty")));
    // Searchable.
    tab->console()->searchEdit()->setText(QStringLiteral("valueerror"));
    QCOMPARE(tab->console()->editor()->textCursor().selectedText(), QStringLiteral("ValueError"));
    QCOMPARE(tab->console()->matchText(), QStringLiteral("1 match"));
    QVERIFY(!tab->console()->findNext() || tab->console()->editor()->textCursor().selectedText() == QStringLiteral("ValueError"));

    // A command that cannot start leaves no trace: its console opens in a tab of its own, worded so.
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    request.command = {QStringLiteral("missing-program")};
    const int tabs = w.tabCount();
    QVERIFY(panel->runProgram(request));
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().at(0).value<app::RecorderRunner::Outcome>(), app::RecorderRunner::Outcome::ProgramNotStarted);
    QVERIFY2(panel->statusText().contains(QStringLiteral("could not start the program")), qPrintable(panel->statusText()));
    QCOMPARE(w.tabCount(), tabs + 1);
    auto* console = w.tabs()->currentWidget()->findChild<views::ConsoleView*>();
    QVERIFY(console);
    QVERIFY(console->text().contains(QStringLiteral("missing-program: not found")));
  }

  // Issue 28, item 3: a timeline draws at most 8 devices, those with the largest peaks; the tab's
  // device choice says so and offers each of the others.
  void aTraceOfManyDevicesDrawsTheLargestAndOffersTheRest() {
    QTemporaryDir dir;
    Trace t;
    for (int16_t d = 0; d < 12; ++d) {
      t.deviceInfo(d).name = "cuda:" + std::to_string(d);
      for (Action a : {Action::Alloc, Action::FreeCompleted}) {
        Event e;
        e.device = d;
        e.action = a;
        e.size = 1'000'000 * (d + 1);
        e.addr = 0x1000;
        e.t_ns = 1000 * d + (a == Action::Alloc ? 0 : 500);
        t.events.push(e);
      }
    }
    const QString path = dir.filePath(QStringLiteral("twelve.sawtooth"));
    QVERIFY(writeNative(t, path.toStdString()).ok());
    app::MainWindow w{QString()};
    TraceTab* tab = w.openFile(path);
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    QComboBox* choice = nullptr;
    for (QComboBox* box : tab->findChildren<QComboBox*>())
      if (box->toolTip() == QLatin1String("Which devices to draw")) choice = box;
    QVERIFY(choice);
    QCOMPARE(choice->count(), 13);
    QCOMPARE(choice->itemText(0), QStringLiteral("The 8 largest of 12 devices"));
    QCOMPARE(tab->timeline()->devicesLeftOut(), size_t{4});
    choice->setCurrentIndex(choice->findText(QStringLiteral("cuda:1")));  // one left out, drawn on demand
    QCOMPARE(tab->timeline()->devicesLeftOut(), size_t{0});
    QVERIFY(tab->timeline()->line(1, SeriesKind::Allocated));
  }

  void keysMoveBetweenTheOpenTraces() {
    app::MainWindow w{QString()};
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    for (const char* name : {"anatomy_adam_snapshot.pickle", "oom_mlp_snapshot_protocol2.pickle.gz", "jax_seed_cpu.prof"})
      w.openFile(data(name));
    QVERIFY(waitIdle(w));
    w.tabs()->setCurrentIndex(0);
    // From inside a trace's views (where Ctrl+Tab moves between its own tabs).
    w.currentTab()->timeline()->setFocus();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_PageDown, Qt::ControlModifier);
    QCOMPARE(w.tabs()->currentIndex(), 1);
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : static_cast<QWidget*>(&w), Qt::Key_PageDown,
                    Qt::ControlModifier);
    QCOMPARE(w.tabs()->currentIndex(), 2);
    QTest::keyClick(&w, Qt::Key_PageDown, Qt::ControlModifier);
    QCOMPARE(w.tabs()->currentIndex(), 0);  // round again
    QTest::keyClick(&w, Qt::Key_PageUp, Qt::ControlModifier);
    QCOMPARE(w.tabs()->currentIndex(), 2);
  }

  void aStartPageOffersRecentFilesAndTheSamples() {
    app::RecentFiles::clear();
    {
      app::MainWindow first{QString()};
      TraceTab* tab = first.openFile(data("anatomy_adam_snapshot.pickle"));
      QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    }
    // A second start with nothing to open: no empty grey area.
    app::MainWindow w{QString()};
    QVERIFY(w.startPageShown());
    QCOMPARE(w.startPage()->sampleList()->count(), 5);
    QCOMPARE(w.startPage()->recentList()->count(), 1);
    QListWidgetItem* recent = w.startPage()->recentList()->item(0);
    QVERIFY(recent->toolTip().endsWith(QStringLiteral("anatomy_adam_snapshot.pickle")));
    emit w.startPage()->recentList()->itemActivated(recent);
    QCOMPARE(w.tabCount(), 1);
    QVERIFY(!w.startPageShown());
    emit w.startPage()->sampleList()->itemActivated(w.startPage()->sampleList()->item(2));
    QCOMPARE(w.tabCount(), 2);
    QCOMPARE(w.tabs()->tabText(1), QStringLiteral("Sample: precision"));
    QVERIFY(waitIdle(w));
    w.tabs()->tabCloseRequested(1);
    w.tabs()->tabCloseRequested(0);
    QVERIFY(w.startPageShown());
  }

  void comparesWithAFileThatIsNotOpen() {
    app::MainWindow w{QString()};
    TraceTab* a = w.openFile(data("anatomy_adam_snapshot.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(a->state(), TraceTab::State::Ready, 20000);
    app::CompareDialog dialog({{a, w.tabs()->tabText(0)}});
    QVERIFY(!dialog.acceptable());  // one trace against itself
    dialog.setFile(1, data("anatomy_adam_snapshot_protocol2.pickle"));
    QVERIFY(dialog.acceptable());
    QCOMPARE(dialog.side(0).tab, a);
    QVERIFY(dialog.side(1).path.endsWith(QStringLiteral("protocol2.pickle")));
    w.compareSides(dialog.side(0), dialog.side(1));
    QTRY_VERIFY_WITH_TIMEOUT(w.currentComparison() != nullptr, 30000);
    QCOMPARE(w.tabCount(), 3);  // the file opened and the comparison
    auto* view = w.currentComparison()->compareView();
    QTRY_VERIFY_WITH_TIMEOUT(view->comparison() != nullptr, 30000);
  }

  void theCallSitesOpenWithTheComparisonInItsTab() {
    // They had a document tab of their own that opened out of sight at the far end of the tab bar.
    app::MainWindow w{QString()};
    for (int i = 0; i < 12; ++i) w.openFile(data("anatomy_adam_snapshot.pickle"), QStringLiteral("a trace with a long name %1").arg(i));
    QVERIFY(waitIdle(w));
    const int before = w.tabCount();
    QVERIFY(w.compare(w.traceTabs()[0], w.traceTabs()[1]));
    QCOMPARE(w.tabCount(), before + 1);
    views::ComparisonTab* comparison = w.currentComparison();
    QVERIFY(comparison);
    QCOMPARE(comparison->tabText(1), QStringLiteral("Call sites"));
    QVERIFY(waitIdle(w));
    QVERIFY(comparison->sitesView()->model()->rowCount() > 0);
  }

  void darkModeFollowsTheSettingAndStaysReadable() {
    app::MainWindow w{QString()};
    QAction* dark = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->data().toString() == QLatin1String("dark")) dark = a;
    QVERIFY(dark);
    dark->trigger();
    QCOMPARE(app::savedColorScheme(), app::ColorScheme::Dark);
    QVERIFY(app::paletteIsDark());
    const QPalette p = QApplication::palette();
    auto lightness = [&](QPalette::ColorGroup g, QPalette::ColorRole r) { return p.color(g, r).lightness(); };
    // Placeholder text readable on its field; a disabled button's text plainly dimmer than an enabled one's.
    QVERIFY(lightness(QPalette::Active, QPalette::PlaceholderText) - lightness(QPalette::Active, QPalette::Base) >= 100);
    QVERIFY(lightness(QPalette::Active, QPalette::ButtonText) - lightness(QPalette::Disabled, QPalette::ButtonText) >= 80);
    // The idle Cancel of the workload panel is drawn disabled.
    QPushButton* cancel = nullptr;
    for (QPushButton* b : w.workloadPanel()->findChildren<QPushButton*>())
      if (b->text() == QLatin1String("Cancel")) cancel = b;
    QVERIFY(cancel && !cancel->isEnabled());
    QCoreApplication::processEvents();
    QCOMPARE(cancel->palette().color(QPalette::Disabled, QPalette::ButtonText), p.color(QPalette::Disabled, QPalette::ButtonText));
    app::applyColorScheme(app::ColorScheme::Light);
    QVERIFY(!app::paletteIsDark());
    app::saveColorScheme(app::ColorScheme::System);
  }

  void readingLimitsComeFromTheSettings() {
    app::ReadingLimitsDialog dialog;
    dialog.setMemory(QStringLiteral("lots"));
    QVERIFY2(dialog.problem().contains(QStringLiteral("not a size")), qPrintable(dialog.problem()));
    dialog.setMemory(QStringLiteral("64K"));
    dialog.setOthers(QStringLiteral("frames=abc"));
    QVERIFY(!dialog.problem().isEmpty());
    dialog.setOthers(QStringLiteral("frames=1000\n"));
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    dialog.save();
    QCOMPARE(app::readingLimitsFromSettings().max_memory, uint64_t{64 * 1024});
    QCOMPARE(app::readingLimitsFromSettings().max_frames, uint64_t{1000});

    app::MainWindow w{QString()};
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot.pickle"));
    // Past a budget that small the snapshot is offered for conversion first (the whole-file budget
    // is never more than the memory limit); read whole, the memory limit refuses it.
    QCOMPARE(tab->state(), TraceTab::State::ConversionOffered);
    QVERIFY2(tab->errorMessage().contains(QStringLiteral("Settings ▸ Reading limits")), qPrintable(tab->errorMessage()));
    emit tab->readWholeRequested();
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Failed, 20000);
    QVERIFY2(tab->errorMessage().contains(QStringLiteral("Settings ▸ Reading limits")), qPrintable(tab->errorMessage()));

    dialog.setMemory(QString());
    dialog.setOthers(QString());
    dialog.save();
    QCOMPARE(app::readingLimitsFromSettings().max_memory, uint64_t{0});  // the default again
    TraceTab* again = w.openFile(data("anatomy_adam_snapshot.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(again->state(), TraceTab::State::Ready, 20000);
  }

  void showsTheReasonWhenAFileCannotBeOpened() {
    app::MainWindow w{QString()};
    TraceTab* hostile = w.openFile(data("hostile_global_reduce_p2.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(hostile->state(), TraceTab::State::Failed, 10000);
    QVERIFY2(hostile->errorText().contains(QStringLiteral("byte 32: opcode GLOBAL")), qPrintable(hostile->errorText()));
    TraceTab* missing = w.openFile(QStringLiteral("/nonexistent/rank3.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(missing->state(), TraceTab::State::Failed, 10000);
    QVERIFY(missing->errorText().contains(QStringLiteral("cannot open")));
    QCOMPARE(w.tabCount(), 2);
    QVERIFY(!w.exportChart(QDir::temp().filePath("never.png")));
  }

  void aScreenshotOfAFileThatDidNotOpenFails() {
    app::MainWindow w{QString()};
    w.openFile(QStringLiteral("/nonexistent/rank3.pickle"));
    QTemporaryDir dir;
    QCOMPARE(app::saveScreenshotWhenLoaded(w, {dir.filePath("shot.png"), false, QString(), false, QString(), QString()}), 1);
    QVERIFY(!QFileInfo::exists(dir.filePath("shot.png")));
  }

  void cancelsLoading() {
    app::MainWindow w{QString()};
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot_protocol0.pickle.gz"));
    emit tab->cancelRequested();
    QCOMPARE(tab->state(), TraceTab::State::Cancelled);
    QVERIFY(tab->errorText().contains(QStringLiteral("cancelled")));
    QVERIFY(waitIdle(w));
    QCOMPARE(tab->state(), TraceTab::State::Cancelled);  // the finished load is dropped
  }

  void opensEveryFormatInTabs() {
    app::MainWindow w{QString()};
    const char* files[] = {"anatomy_adam_profiler_trace.json.gz", "oom_mlp_snapshot_protocol2.pickle.gz",
                           "anatomy_adam_snapshot_protocol5.pickle"};
    for (const char* f : files) w.openFile(data(f));
    for (int i = 0; i < w.tabCount(); ++i) {
      auto* tab = qobject_cast<TraceTab*>(w.tabs()->widget(i));
      QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    }
    auto* profiler = qobject_cast<TraceTab*>(w.tabs()->widget(0));
    QCOMPARE(profiler->timeline()->peakPoint(0).y(), 572522496.0);
  }

  void comparesTwoTracesInAJob() {
    app::MainWindow w{QString()};
    w.resize(1400, 900);
    w.show();
    TraceTab* a = w.openFile(data("anatomy_adam_snapshot.pickle"));
    TraceTab* b = w.openFile(data("anatomy_adam_snapshot_protocol5.pickle"));
    QTRY_VERIFY_WITH_TIMEOUT(a->state() == TraceTab::State::Ready && b->state() == TraceTab::State::Ready, 20000);
    auto* view = w.compare(a, b);
    QVERIFY(view);
    QVERIFY(waitIdle(w));
    QVERIFY(view->comparison());
    QCOMPARE(view->differencesModel()->rowCount(), 2);
    QVERIFY(view->timeline()->line(kCompareOffset, SeriesKind::Allocated));
    view->setAlignment(Alignment::Time);
    QVERIFY(waitIdle(w));
    QCOMPARE(view->comparison()->alignment, Alignment::Time);
    QVERIFY(view->timeline()->xAxisByTime());
    QTemporaryDir dir;
    QVERIFY(w.exportChart(dir.filePath("compare.png")));
    QVERIFY(waitIdle(w));
    QVERIFY(!QImage(dir.filePath("compare.png")).isNull());
  }

  void theLadderPredictsForAnOpenRecordingInAJob() {
    app::MainWindow w{QString()};
    w.resize(1400, 900);
    w.show();
    TraceTab* tab = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/accumulation.sawtooth"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 30000);
    auto* ladder = w.showLadder();
    QTRY_VERIFY_WITH_TIMEOUT(ladder->report() != nullptr, 30000);
    const LadderRow* k2 = ladder->report()->row("accumulate:k=2");
    QVERIFY(k2);
    QVERIFY(k2->measured.has_value());  // the recording's own k=2 run, beside the prediction
    // Within 0.2 %, as core's ladder test holds it: the cuBLAS workspace the first forward makes and
    // never frees is kept whole at k=2.
    QVERIFY(k2->peak_error.has_value() && std::abs(*k2->peak_error) < 0.002);
    // A smaller device: the report comes again, judged against it.
    ladder->setDeviceMemory(int64_t{1} * 1000 * 1000 * 1000);
    QTRY_VERIFY_WITH_TIMEOUT(ladder->report() && ladder->report()->device_memory == int64_t{1} * 1000 * 1000 * 1000, 30000);
    QCOMPARE(*ladder->report()->rows.front().fits, false);
    // Recorded on one H200: the sharding rungs' collectives move over NVLink 4; another link and
    // device count give another report.
    const LadderRow* zero1 = ladder->report()->row("zero1:N=2");
    QVERIFY(zero1 && zero1->step_ms.has_value());
    QVERIFY(QString::fromStdString(zero1->time_basis).contains(QStringLiteral("NVLink 4")));
    ladder->setShardDevices(4);
    ladder->setLinkBandwidth(10);
    QTRY_VERIFY_WITH_TIMEOUT(ladder->report() && ladder->report()->row("zero1:N=4") &&
                                 ladder->report()->row("zero1:N=4")->step_ms.has_value(),
                             30000);
    QVERIFY(QString::fromStdString(ladder->report()->row("zero1:N=4")->time_basis).contains(QStringLiteral("asked for")));
  }

  // A program recorded without module tracking (the default): its Modules view offers to record it
  // again, and the offer opens Record a program with its command, folder and Modules ticked.
  void aRecordingWithoutModulesOffersToRecordItAgainWithThem() {
    QTemporaryDir dir;
    auto trace = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
    QVERIFY(trace.ok());
    trace->meta["modules"] = "off";
    trace->meta["command"] = "[\"python\", \"train me.py\", \"--say\", \"\\\"hi\\\"\"]";
    trace->meta["cwd"] = dir.path().toStdString();
    trace->meta["env.PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
    const QString path = dir.filePath(QStringLiteral("program.sawtooth"));
    QVERIFY(writeNative(*trace, path.toStdString()).ok());
    app::MainWindow w{QString()};
    w.show();
    TraceTab* tab = w.openFile(path);
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 30000);
    QPushButton* again = tab->modulesView()->recordAgainButton();
    QTRY_VERIFY_WITH_TIMEOUT(!again->isHidden(), 30000);
    QString command, folder;
    QStringList environment;
    bool modules = false;
    QTimer::singleShot(0, this, [&] {
      auto* dialog = qobject_cast<app::ProgramDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      const app::RecorderRunner::Request r = dialog->request();
      command = r.command.join(QLatin1Char('|'));
      folder = r.working_dir;
      environment = r.environment;
      modules = r.program_options.join(' ').contains(QStringLiteral("--modules on"));
      dialog->reject();
    });
    again->click();
    QCOMPARE(command, QStringLiteral("python|train me.py|--say|\"hi\""));  // read back as recorded
    QCOMPARE(folder, dir.path());
    QCOMPARE(environment, QStringList{"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"});
    QVERIFY(modules);
  }

  void theLadderPutsOnlyTheSameProgramsRunsBesideItsRows() {
    // The anatomy recording's ladder with the precision workload's recording open too: its bf16
    // run is another model's, and had been shown as anatomy's measured bf16 (a −47 % "error").
    app::MainWindow w{QString()};
    w.resize(1400, 900);
    w.show();
    TraceTab* anatomy = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/anatomy.sawtooth"));
    TraceTab* precision = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/precision.sawtooth"));
    QTRY_COMPARE_WITH_TIMEOUT(anatomy->state(), TraceTab::State::Ready, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(precision->state(), TraceTab::State::Ready, 30000);
    auto* ladder = w.showLadder();
    QTRY_VERIFY_WITH_TIMEOUT(ladder->report() != nullptr, 30000);
    QCOMPARE(QString::fromStdString(ladder->report()->run), QStringLiteral("adam"));  // anatomy's, the first tab
    const LadderRow* bf16 = ladder->report()->row("bf16");
    QVERIFY(bf16);
    QVERIFY(!bf16->measured.has_value());
  }

  void runIsEnabledOnceTheWorkloadsAreListed() {
    // With no file open, F5 stayed disabled until a tab changed.
    QTemporaryDir dir;
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    QAction* run = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->shortcut() == QKeySequence(Qt::Key_F5)) run = a;
    QVERIFY(run);
    QTRY_VERIFY_WITH_TIMEOUT(w.workloadPanel()->catalog().has_value(), 20000);
    QCOMPARE(w.tabCount(), 0);
    QVERIFY(run->isEnabled());
  }

  void cudaIsNotOfferedWithoutAGpu() {
    QTemporaryDir dir;
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    auto* panel = w.workloadPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->catalog().has_value(), 20000);
    QVERIFY(!panel->deviceSelectable(QStringLiteral("cuda")));
    QVERIFY(!panel->setDevice(QStringLiteral("cuda")));
    QVERIFY(panel->setDevice(QStringLiteral("cpu")));
    auto* combo = panel->findChild<QComboBox*>(QStringLiteral("device"));
    QVERIFY(combo);
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    QVERIFY(!model->item(combo->findData(QStringLiteral("cuda")))->isEnabled());
    QTemporaryDir gpu_dir;
    app::MainWindow with_gpu(writeStandInRecorder(gpu_dir, true), gpu_dir.path());
    QTRY_VERIFY_WITH_TIMEOUT(with_gpu.workloadPanel()->catalog().has_value(), 20000);
    QVERIFY(with_gpu.workloadPanel()->setDevice(QStringLiteral("cuda")));
  }

  void progressNamesTheRunOnceAndTheRefusalIsShown() {
    QTemporaryDir dir;
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    auto* panel = w.workloadPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->catalog().has_value(), 20000);
    panel->selectWorkload(QStringLiteral("precision"));
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    QVERIFY(panel->run());
    // The run's name once: "bf16: step 3 of 20", not "bf16 — bf16: step 3 of 20".
    QTRY_COMPARE_WITH_TIMEOUT(panel->statusText(), QStringLiteral("bf16: step 3 of 20"), 10000);
    QCOMPARE(panel->progressBar()->value(), 400);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.first().at(0).value<app::RecorderRunner::Outcome>(), app::RecorderRunner::Outcome::BadArguments);
    // The recorder's message without its program prefix.
    QCOMPARE(finished.first().at(2).toString(), QStringLiteral("steps=0: must be between 1 and 1000"));
    QVERIFY(panel->statusIsError());
    QVERIFY(panel->statusText().contains(QStringLiteral("must be between 1 and 1000")));
  }

  void resetClearsAStaleComplaint() {
    QTemporaryDir dir;
    app::MainWindow w(writeStandInRecorder(dir, false), dir.path());
    auto* panel = w.workloadPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->catalog().has_value(), 20000);
    panel->selectWorkload(QStringLiteral("precision"));
    QVERIFY(panel->setParameter(QStringLiteral("steps"), QStringLiteral("abc")));
    QVERIFY(!panel->run());
    QVERIFY(panel->statusIsError());
    QVERIFY2(panel->statusText().contains(QStringLiteral("steps: not a whole number")), qPrintable(panel->statusText()));
    panel->resetParameters();
    QVERIFY(panel->validationErrors().isEmpty());
    QVERIFY(!panel->statusIsError());
    QVERIFY(!panel->statusText().contains(QStringLiteral("whole number")));
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
