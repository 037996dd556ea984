// The allocator views fed with what core computes from the fixtures: the segment map and its
// scrubber, the fragmentation chart, the flame graph and the table by call site, the diff's
// chart and table (core tables); every model under QAbstractItemModelTester; every picture drawn
// for export (the app's jobs write them).
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QHelpEvent>
#include <QToolTip>
#include <QtTest>

#include "core/analysis/allocator_history.h"
#include "core/analysis/fragmentation_frame.h"
#include "core/analysis/fragmentation_series.h"
#include "core/analysis/live_bytes.h"
#include "core/analysis/segment_map.h"
#include "core/analysis/site_tables.h"
#include "core/analysis/trace_diff.h"
#include "core/io/trace_loader.h"
#include "views/allocator_state_view.h"
#include "views/comparison_tab.h"
#include "views/diff_sites_view.h"
#include "views/fragmentation_chart.h"
#include "views/live_bytes_view.h"
#include "views/qt_format.h"
#include "views/timeline_style.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

std::shared_ptr<const Trace> load(const char* name) {
  auto t = loadTrace(std::string(SAWTOOTH_TEST_DATA) + "/" + name);
  if (!t.ok()) qFatal("%s: %s", name, t.error().message.c_str());
  return std::make_shared<const Trace>(std::move(*t));
}

std::shared_ptr<const AllocatorHistory> history(const Trace& t) {
  auto h = AllocatorHistory::build(t, 0);
  if (!h.ok()) qFatal("%s", h.error().message.c_str());
  return std::make_shared<const AllocatorHistory>(std::move(h.value()));
}

bool drawsSvg(const QByteArray& svg) { return svg.contains("<svg") && svg.size() > 100; }

}  // namespace

class AllocatorViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void segmentMapDrawsEverySegmentAndDescribesBlocks() {
    const auto t = load("synthetic_window_streams.pickle");
    const auto h = history(*t);
    AllocatorStateView view;
    view.resize(1000, 700);
    view.setEventCount(static_cast<qint64>(h->events().size()));
    QSignalSpy asked(&view, &AllocatorStateView::positionRequested);
    view.eventBox()->setValue(3);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).toLongLong(), 3);
    QCOMPARE(view.slider()->value(), 3);
    auto map = std::make_shared<const SegmentMap>(segmentMapAt(*t, *h, static_cast<int64_t>(h->events().size()) - 1));
    view.setMap(map);
    QCOMPARE(asked.count(), 1);  // showing a map does not ask for another
    QCOMPARE(view.eventBox()->value(), map->state.position);
    QCOMPARE(view.segmentMap()->rowCount(), 1 + static_cast<int>(map->groups.size() + map->state.segments.size()));
    QVERIFY(view.headline()->text().contains(QStringLiteral("segments")));
    QCOMPARE(view.oomText()->isVisibleTo(&view), map->oom.has_value());  // this fixture ends in an OOM
    QVERIFY(map->oom.has_value());
    // The tooltip of the first block of the first segment names its state and size.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const size_t seg = map->groups.front().segments.front();
    const QRect block = view.segmentMap()->blockRect(seg, 0);
    QVERIFY(block.isValid());
    const QString text = view.segmentMap()->describeAt(block.center());
    QVERIFY2(text.contains(toQString(name(blockKind(map->state.segments[seg], map->state.segments[seg].blocks[0])))), qPrintable(text));
    QVERIFY(text.contains(bytesText(map->state.segments[seg].blocks[0].size)));
    // Exported at the map's full height, not the scroll area's.
    const QImage image = renderWidgetImage(view.picture());
    QVERIFY(!image.isNull());
    QCOMPARE(image.height(), view.segmentMap()->sizeHint().height());
    QVERIFY(drawsSvg(renderWidgetSvg(view.picture(), QStringLiteral("segments"))));
  }

  void segmentMapShowsTheOutOfMemory() {
    const auto t = load("oom_mlp_snapshot_protocol2.pickle.gz");
    const auto h = history(*t);
    int64_t oom = -1;
    for (size_t i = 0; i < h->events().size(); ++i)
      if (t->events.action()[h->events()[i]] == Action::Oom) oom = static_cast<int64_t>(i);
    QVERIFY(oom >= 0);
    AllocatorStateView view;
    view.setEventCount(static_cast<qint64>(h->events().size()));
    view.setMap(std::make_shared<const SegmentMap>(segmentMapAt(*t, *h, oom)));
    QVERIFY(view.oomText()->isVisibleTo(&view));
    QVERIFY(view.oomText()->text().contains(QStringLiteral("Asked for")));
    view.setMessage(QStringLiteral("no segments"));
    QVERIFY(!view.oomText()->isVisibleTo(&view));
    QCOMPARE(view.segmentMap()->rowCount(), 1);
  }

  void fragmentationFollowsTheWindow() {
    const auto t = load("anatomy_adam_snapshot.pickle");
    const auto h = history(*t);
    FragmentationChart chart;
    chart.resize(900, 240);
    chart.setSeries(std::make_shared<const FragmentationSeries>(t, h));
    for (int i = 0; i < FragmentationSeries::kLines; ++i) QVERIFY(chart.linePoints(i).count() > 1);
    QCOMPARE(chart.xAxis()->min(), 0.0);
    QCOMPARE(chart.xAxis()->max(), static_cast<double>(h->events().size() - 1));
    chart.setWindow(10, 50);
    QCOMPARE(chart.xAxis()->min(), 10.0);
    QCOMPARE(chart.xAxis()->max(), 50.0);
    for (const QPointF& p : chart.linePoints(0)) QVERIFY(p.x() >= 10 && p.x() <= 50);
    chart.setXAxisByTime(true);
    QVERIFY(chart.xAxis()->titleText().contains(QStringLiteral("ms")));
    QCOMPARE(chart.xAxis()->max(), static_cast<double>(t->events.tNs()[h->events().back()]) / 1e6);
  }

  void fragmentationAsksOneFrameAWindowWhileTheLabelsMoveThePlot() {
    // Frames come later, as from the app's jobs: by then Qt has laid out the new window's labels and
    // the plot may be a few pixels narrower or wider ("2" or "351" overhanging its right edge). The
    // frame that comes is drawn, and no other is asked for the same window.
    FragmentationExtent extent;
    extent.points = 352;
    extent.max_value = 600'000'000;
    FragmentationChart chart;
    chart.resize(900, 240);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    std::vector<FragmentationRequest> asked;
    connect(&chart, &FragmentationChart::frameRequested, this, [&](const FragmentationRequest& r) { asked.push_back(r); });
    chart.setOnDemand(extent);
    auto answer = [&] {
      QTest::qWait(50);  // the layout of the window's labels
      FragmentationFrame frame;
      frame.request = asked.back();
      for (auto& line : frame.lines) line = {{frame.request.x0, 1e8}, {frame.request.x1, 2e8}};
      chart.setFrame(frame);
      QTest::qWait(50);
    };
    answer();
    const QRectF plot = chart.chart()->plotArea();
    bool moved = false;
    for (auto [lo, hi] : {std::pair{0.0, 2.0}, {0.0, 351.0}, {10.0, 12.0}, {0.0, 351.0}}) {
      const size_t before = asked.size();
      chart.setWindow(lo, hi);
      QCOMPARE(asked.size(), before + 1);
      answer();
      moved = moved || chart.chart()->plotArea().width() != plot.width();
      QCOMPARE(asked.size(), before + 1);
      QCOMPARE(chart.frame()->request.x1, hi);
      QCOMPARE(chart.linePoints(0).count(), 2);
    }
    QVERIFY2(moved, "the labels never moved the plot: the case is not tested");
  }

  void fragmentationTicksAtRoundValues() {
    // Qt's five ticks fell anywhere (−5.7, 150.8); the timeline's rule puts them at 1, 2 or 5 × 10^k.
    const auto t = load("anatomy_adam_snapshot.pickle");
    FragmentationChart chart;
    chart.resize(900, 240);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setSeries(std::make_shared<const FragmentationSeries>(t, history(*t)));
    auto round = [](double v) {
      const double decade = std::pow(10.0, std::floor(std::log10(v)));
      const double m = v / decade;
      return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
    };
    for (const auto& [lo, hi] : {std::pair{3.0, 157.0}, std::pair{10.0, 50.0}, std::pair{0.0, 351.0}}) {
      chart.setWindow(lo, hi);
      for (QValueAxis* axis : {chart.xAxis(), chart.yAxis()}) {
        QCOMPARE(axis->tickType(), QValueAxis::TicksDynamic);
        QVERIFY2(round(axis->tickInterval()), qPrintable(QString::number(axis->tickInterval())));
        const double k = axis->tickAnchor() / axis->tickInterval();
        QVERIFY(std::abs(k - std::round(k)) < 1e-9);
      }
      QVERIFY(chart.xAxis()->tickInterval() >= 1);  // whole events
    }
  }

  void flameGraphZoomsAndTableSumsToThePeak() {
    const auto t = load("anatomy_adam_snapshot.pickle");
    auto live = std::make_shared<const LiveBytes>(liveBytesAt(*t, 0));
    LiveBytesView view;
    view.resize(1000, 800);
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setLiveBytes(live);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.model()->rowCount(), static_cast<int>(live->sites.size()));
    constexpr int kBytes = 2;  // liveSitesTable's "live" column
    QCOMPARE(view.model()->headerData(kBytes, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("live"));
    qlonglong sum = 0;
    for (int r = 0; r < view.model()->rowCount(); ++r)
      sum += view.model()->data(view.model()->index(r, kBytes), TableModel::RawRole).toLongLong();
    QCOMPARE(sum, static_cast<qlonglong>(live->total));
    QCOMPARE(view.tableData().get(), &live->table);
    FlameGraphWidget* flame = view.flameGraph();
    QVERIFY(!flame->rects().empty());
    QVERIFY(flame->describe(0).contains(bytesText(live->total)));
    // Click the widest child of the root: it becomes the focus, full width.
    const uint32_t child = live->flame.nodes[0].children.front();
    QRect where;
    for (const FlameRect& r : flame->rects())
      if (r.node == child) where = QRect(static_cast<int>(r.x * flame->width()) + 2, r.depth * FlameGraphWidget::kRowHeight + 5, 2, 2);
    QVERIFY(where.isValid());
    QCOMPARE(flame->nodeAt(where.center()), child);
    QSignalSpy zoomed(flame, &FlameGraphWidget::focusChanged);
    QTest::mouseClick(flame, Qt::LeftButton, {}, where.center());
    QCOMPARE(zoomed.count(), 1);
    QCOMPARE(flame->focus(), child);
    for (const FlameRect& r : flame->rects())
      if (r.node == child) QCOMPARE(r.width, 1.0);
    QTest::mouseDClick(flame, Qt::LeftButton, {}, QPoint(5, 5));
    QCOMPARE(flame->focus(), 0u);
    QCOMPARE(renderWidgetImage(view.picture()).size(), flame->size());
    view.setMessage(QStringLiteral("computing"));
    QVERIFY(!view.tableData());
    QCOMPARE(view.model()->rowCount(), 0);
  }

  void diffChartsTheSitesThatChanged() {
    const auto a = load("synthetic_window_streams.pickle");
    const auto b = load("synthetic_expandable_streams.pickle");
    auto diff = diffTraces(*a, "a.pickle", *b, "b.pickle");
    QVERIFY(diff.ok());
    auto shared = std::make_shared<const CallSiteDiff>(callSiteDiff(std::move(*diff), DivergingBarChart::kSites));
    DiffSitesView view;
    view.resize(1100, 800);
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setDiff(shared);
    QCOMPARE(view.model()->rowCount(), static_cast<int>(shared->diff.rows.size()));
    QVERIFY(view.summary()->text().contains(QStringLiteral("Peak:")));
    constexpr int kABytes = 2, kBBytes = 3;  // diffSitesTable's columns
    qlonglong a_sum = 0, b_sum = 0;
    for (int r = 0; r < view.model()->rowCount(); ++r) {
      a_sum += view.model()->data(view.model()->index(r, kABytes), TableModel::RawRole).toLongLong();
      b_sum += view.model()->data(view.model()->index(r, kBBytes), TableModel::RawRole).toLongLong();
    }
    QCOMPARE(a_sum, static_cast<qlonglong>(shared->diff.a.peak_allocated_bytes));
    QCOMPARE(b_sum, static_cast<qlonglong>(shared->diff.b.peak_allocated_bytes));
    QCOMPARE(view.tableData().get(), &shared->table);
    // The change column in the chart's colours: growth red, shrinkage green, no change plain.
    constexpr int kChange = 4;
    for (int r = 0; r < view.model()->rowCount(); ++r) {
      const double change = view.model()->data(view.model()->index(r, kChange), TableModel::RawRole).toDouble();
      const QVariant colour = view.model()->data(view.model()->index(r, kChange), Qt::ForegroundRole);
      if (change > 0) QCOMPARE(colour.value<QColor>(), growthColor());
      else if (change < 0) QCOMPARE(colour.value<QColor>(), shrinkColor());
      else QVERIFY(!colour.isValid());
      QVERIFY(!view.model()->data(view.model()->index(r, kABytes), Qt::ForegroundRole).isValid());
    }
    DivergingBarChart* chart = view.chart();
    QVERIFY(!chart->sites().isEmpty());
    QVERIFY(chart->sites().size() <= static_cast<int>(DivergingBarChart::kSites));
    // Growth goes right, shrinking left; the top bar is the largest growth.
    const int n = chart->grewSet()->count();
    for (int i = 0; i < n; ++i) QVERIFY(chart->grewSet()->at(i) >= 0 && chart->shrankSet()->at(i) <= 0);
    QVERIFY(chart->grewSet()->at(n - 1) >= chart->grewSet()->at(0));
    QVERIFY(chart->describe(0).contains(QStringLiteral("A at its peak")));
    // A trace against itself: nothing to chart.
    auto same = diffTraces(*a, "a", *a, "a");
    QVERIFY(same.ok());
    view.setDiff(std::make_shared<const CallSiteDiff>(callSiteDiff(std::move(*same), DivergingBarChart::kSites)));
    QVERIFY(view.chart()->sites().isEmpty());
  }

  void longSignaturesStayReadableAndBarsExplainThemselves() {
    // C++ sites are whole signatures: every bar label read "…", and no bar had a tooltip.
    TraceDiff d;
    d.a.file = "a.pickle";
    d.b.file = "b.pickle";
    for (int i = 0; i < 6; ++i) {
      DiffRow r;
      r.site = QStringLiteral("Loops.cpp:%1 void at::native::(anonymous namespace)::kernel_%1<float, c10::complex<double>>("
                              "at::TensorIteratorBase&, c10::Scalar const&, std::optional<c10::MemoryFormat>) const")
                   .arg(100 + i)
                   .toStdString();
      r.category = Category::Activation;
      r.a_bytes = i * 1'000'000;
      r.b_bytes = (i + 2) * 3'000'000;
      d.rows.push_back(r);
    }
    std::sort(d.rows.begin(), d.rows.end(), [](const DiffRow& x, const DiffRow& y) { return x.growth() > y.growth(); });
    const auto shared = std::make_shared<const CallSiteDiff>(callSiteDiff(std::move(d), DivergingBarChart::kSites));
    // As the window does it: given its diff while the comparison's timeline is in front, shown after.
    ComparisonTab tab;
    tab.resize(1100, 800);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    DiffSitesView& view = *tab.sitesView();
    view.setDiff(shared);
    QCoreApplication::processEvents();
    tab.showSites();
    DivergingBarChart* chart = view.chart();
    QCOMPARE(chart->sites().size(), 6);
    QCOMPARE(chart->sites().front(), QStringLiteral("Loops.cpp:105 at::native::kernel_105 · activation"));
    QCoreApplication::processEvents();
    QVERIFY(!chart->siteAxis()->labelsTruncated());

    // Resting on the top bar shows what it stands for.
    QBarSet* grew = chart->grewSet();
    const int top = grew->count() - 1;
    const QPointF centre = chart->chart()->mapToPosition(QPointF(grew->at(top) / 2, top), chart->chart()->series().front());
    const QPoint at = chart->mapFromScene(chart->chart()->mapToScene(centre));
    // A plain move, no button held (QTest remembers the buttons other tests pressed).
    QMouseEvent move(QEvent::MouseMove, at, chart->viewport()->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(chart->viewport(), &move);
    QTRY_COMPARE(chart->hoveredSite(), 0);
    QHelpEvent help(QEvent::ToolTip, at, chart->viewport()->mapToGlobal(at));
    QApplication::sendEvent(chart->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("kernel_105")), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains(QStringLiteral("B at its peak")));
  }
};

QTEST_MAIN(AllocatorViewsTest)
#include "allocator_views_test.moc"
