#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "tests/views/view_test_data.h"
#include "views/events_view.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

EventRows rowsFor(const Trace& t, const std::string& filter, EventColumn sort = EventColumn::Index, bool descending = false) {
  auto r = selectEvents(t, EventQuery{filter, sort, descending});
  if (!r) qFatal("%s", r.error().message.c_str());
  return *r;
}

}  // namespace

class EventsTableModelTest : public QObject {
  Q_OBJECT
  std::shared_ptr<const Trace> trace_ = test::fixture("anatomy_adam_snapshot.pickle")->analysis->sharedTrace();

 private slots:
  void passesTheModelTester() {
    EventsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTrace(trace_);
    QCOMPARE(model.rowCount(), 352);
    model.setRows(rowsFor(*trace_, "alloc"), trace_);
    model.setRows(rowsFor(*trace_, "", EventColumn::Size, true), trace_);
    model.setRows(rowsFor(*trace_, "size>=100GB"), trace_);
    QCOMPARE(model.rowCount(), 0);
    model.setTrace(nullptr);
  }

  void showsTheRowsItIsGivenInTheirOrder() {
    EventsTableModel model;
    model.setTrace(trace_);
    model.setRows(rowsFor(*trace_, "", EventColumn::Size, true), trace_);
    const auto& ev = trace_->events;
    QCOMPARE(ev.sizes()[static_cast<size_t>(model.eventAt(0))], *std::max_element(ev.sizes().begin(), ev.sizes().end()));
    QCOMPARE(model.index(0, EventsTableModel::Index).data(EventsTableModel::EventRole).toLongLong(), model.eventAt(0));
    QCOMPARE(model.rowOfEvent(model.eventAt(5)), 5);
    // Rows computed for another trace are not shown.
    auto other = test::fixture("oom_mlp_snapshot_protocol2.pickle.gz")->analysis->sharedTrace();
    model.setRows(rowsFor(*other, "alloc"), other);
    QCOMPARE(ev.sizes()[static_cast<size_t>(model.eventAt(0))], *std::max_element(ev.sizes().begin(), ev.sizes().end()));
  }

  void aProgramsRunIsNamedWithoutItsFolders() {
    Trace t;
    t.runs.push_back(Run{"/home/me/venv/bin/python /home/me/project/train.py --epochs 1", "program", {}, {}});
    Event e;
    e.action = sawtooth::Action::Alloc;
    e.size = 1024;
    e.addr = 0x1000;
    e.run = 0;
    t.events.push(e);
    EventsTableModel model;
    model.setTrace(std::make_shared<const Trace>(std::move(t)));
    const QModelIndex run = model.index(0, EventsTableModel::Run);
    QCOMPARE(run.data().toString(), QStringLiteral("python train.py --epochs 1"));
    QCOMPARE(run.data(Qt::ToolTipRole).toString(), QStringLiteral("/home/me/venv/bin/python /home/me/project/train.py --epochs 1"));
  }

  void sortingAsksForRows() {
    EventsTableModel model;
    model.setTrace(trace_);
    QSignalSpy spy(&model, &EventsTableModel::sortRequested);
    model.sort(EventsTableModel::Size, Qt::DescendingOrder);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.first().at(0).value<EventColumn>(), EventColumn::Size);
    QCOMPARE(spy.first().at(1).toBool(), true);
    QCOMPARE(model.eventAt(0), 0);  // unchanged until the rows arrive
  }

  void theTopFrameIsNeverTheUnwinder() {
    Trace t;
    const uint32_t ids[] = {t.stacks.internFrame("torch::unwind::unwind()", "??", 0),
                            t.stacks.internFrame("at::native::empty_cuda(...)", "/src/Empty.cpp", 31)};
    Event e;
    e.stack = t.stacks.internStack(ids);
    t.events.push(e);
    EventsTableModel model;
    model.setTrace(std::make_shared<const Trace>(std::move(t)));
    QCOMPARE(model.index(0, EventsTableModel::TopFrame).data().toString(), QStringLiteral("at::native::empty_cuda(...) (Empty.cpp:31)"));
  }

  void theViewAsksForAQueryWhenTypingPauses() {
    EventsView view;
    view.setTrace(trace_);
    QSignalSpy spy(&view, &EventsView::queryChanged);
    view.filterEdit()->setText(QStringLiteral("a"));
    view.filterEdit()->setText(QStringLiteral("al"));
    view.filterEdit()->setText(QStringLiteral("alloc"));
    QTRY_COMPARE(spy.count(), 1);  // one query for the pause, not one per key
    QCOMPARE(spy.first().at(0).value<EventQuery>().filter, std::string("alloc"));
    QVERIFY(view.waitingForRows());
    QVERIFY(view.countText().contains(QStringLiteral("updating")));
    view.setRows(rowsFor(*trace_, "alloc"), trace_);
    QVERIFY(!view.waitingForRows());
    QVERIFY2(view.countText().contains(QStringLiteral("of 352 events")), qPrintable(view.countText()));
    // A filter that does not parse says why at once and asks for nothing.
    view.filterEdit()->setText(QStringLiteral("size>=lots"));
    QVERIFY(view.countText().contains(QStringLiteral("'lots' is not a size")));
    QTest::qWait(300);
    QCOMPARE(spy.count(), 1);
    // Clicking a column header sorts: a query with the column.
    view.table()->sortByColumn(EventsTableModel::Size, Qt::DescendingOrder);
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.last().at(0).value<EventQuery>().sort, EventColumn::Size);
  }
};

QTEST_MAIN(EventsTableModelTest)
#include "events_table_model_test.moc"
