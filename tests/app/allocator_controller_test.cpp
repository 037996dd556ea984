// The allocator views' jobs: after an analysis the replay, the fragmentation series, the segment
// map at the peak and the live bytes at the peak all arrive; scrubbing coalesces to the newest
// request; the timeline's cursor moves the map; the call-site diff reaches its view.
#include <QSignalSpy>
#include <QtTest>

#include "app/sawtooth/allocator_controller.h"
#include "core/analysis/live_allocations.h"
#include "views/trace_load_job.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

std::shared_ptr<const TraceAnalysis> analyse(const char* name) {
  auto result = TraceLoadJob::loadNow(QString::fromUtf8(SAWTOOTH_TEST_DATA "/") + QString::fromUtf8(name));
  if (!result.analysis) qFatal("%s", qPrintable(result.error));
  return result.analysis;
}

}  // namespace

class AllocatorControllerTest : public QObject {
  Q_OBJECT

 private slots:
  void deliversEveryViewOffTheGuiThread() {
    const auto analysis = analyse("anatomy_adam_snapshot.pickle");
    TimelineChart timeline;
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    timeline.setAnalysis(analysis);
    app::AllocatorController controller({&timeline, &state, &fragmentation, &live}, nullptr);
    QSignalSpy idle(&controller, &app::AllocatorController::idle);
    controller.setAnalysis(analysis);
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy() && controller.history(), 30000);
    const auto& h = *controller.history();
    QVERIFY(state.segmentMap()->map());
    QCOMPARE(state.segmentMap()->map()->state.position, h.report().peak_position);
    QCOMPARE(state.eventBox()->maximum(), static_cast<int>(h.events().size()) - 1);
    QVERIFY(fragmentation.series());
    QVERIFY(live.liveBytes());
    QVERIFY(live.liveBytes()->at_peak);
    QCOMPARE(live.liveBytes()->total, scopePeak(analysis->trace(), 0).bytes);
    QCOMPARE(idle.count(), 1);

    // Scrub three times at once: the last request wins.
    state.eventBox()->setValue(5);
    state.eventBox()->setValue(9);
    state.eventBox()->setValue(12);
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy(), 30000);
    QCOMPARE(state.segmentMap()->map()->state.position, 12);
    QCOMPARE(state.eventBox()->value(), 12);

    // The timeline's cursor on a global event: the map follows to that event's position.
    const uint64_t event = h.events()[20];
    emit timeline.eventHovered(static_cast<qint64>(event));
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy(), 30000);
    QCOMPARE(state.segmentMap()->map()->state.position, 20);
    state.followBox()->setChecked(false);
    emit timeline.eventHovered(static_cast<qint64>(h.events()[30]));
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy(), 30000);
    QCOMPARE(state.segmentMap()->map()->state.position, 20);

    // A click on the fragmentation chart: the map and the live bytes at that event.
    emit fragmentation.positionClicked(40);
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy(), 30000);
    QCOMPARE(state.segmentMap()->map()->state.position, 40);
    QCOMPARE(live.liveBytes()->position, 40);
    QVERIFY(!live.liveBytes()->at_peak);
  }

  void opensAtTheOutOfMemory() {
    const auto analysis = analyse("oom_mlp_snapshot_protocol2.pickle.gz");
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    app::AllocatorController controller({nullptr, &state, &fragmentation, &live}, nullptr);
    controller.setAnalysis(analysis);
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy() && state.segmentMap()->map(), 30000);
    QVERIFY(state.segmentMap()->map()->oom.has_value());
    QVERIFY(state.oomText()->isVisibleTo(&state));
  }

  void aTraceWithoutSegmentsSaysSo() {
    const auto analysis = analyse("anatomy_adam_profiler_trace.json.gz");
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    app::AllocatorController controller({nullptr, &state, &fragmentation, &live}, nullptr);
    controller.setAnalysis(analysis);
    QTRY_VERIFY_WITH_TIMEOUT(!controller.busy(), 30000);
    QVERIFY(!controller.history());
    QVERIFY2(state.headline()->text().startsWith(QStringLiteral("No allocator state")), qPrintable(state.headline()->text()));
    QVERIFY(live.liveBytes());  // live bytes by call site need no segments
  }

  void diffReachesTheView() {
    const auto a = analyse("synthetic_window_streams.pickle");
    const auto b = analyse("synthetic_expandable_streams.pickle");
    DiffSitesView view;
    app::runSiteDiff(&view, a->sharedTrace(), QStringLiteral("a.pickle"), b->sharedTrace(), QStringLiteral("b.pickle"));
    QTRY_VERIFY_WITH_TIMEOUT(view.model()->rowCount() > 0, 30000);
    QVERIFY(view.summary()->text().contains(QStringLiteral("Peak:")));
  }
};

QTEST_MAIN(AllocatorControllerTest)
#include "allocator_controller_test.moc"
