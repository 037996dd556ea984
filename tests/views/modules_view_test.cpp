// The Modules view fed with what core computes from the module test trace (tests/core/module_trace.h:
// every number follows from its events by hand): the headline, the icicle whose category leaves take
// the categories' colours, the table per module under QAbstractItemModelTester whose own bytes sum
// to the peak exactly, a row double-clicked zooming the icicle to its module, the pictures PNG and
// SVG export draw, and a PyTorch snapshot (no modules) saying why.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "core/analysis/module_table.h"
#include "core/io/trace_loader.h"
#include "tests/core/module_trace.h"
#include "views/modules_view.h"
#include "views/qt_format.h"
#include "views/timeline_style.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

constexpr int kModule = 0, kParameters = 2, kActivations = 5, kTemporaries = 6, kTotal = 8, kOwn = 9;

int rowNamed(const TableModel* model, const QString& name) {
  for (int r = 0; r < model->rowCount(); ++r)
    if (model->data(model->index(r, kModule), Qt::DisplayRole).toString() == name) return r;
  return -1;
}

qlonglong raw(const TableModel* model, int row, int column) {
  return model->data(model->index(row, column), TableModel::RawRole).toLongLong();
}

}  // namespace

class ModulesViewTest : public QObject {
  Q_OBJECT
 private slots:
  void showsTheModulesAtThePeak() {
    const Trace trace = test::moduleTrace();
    auto modules = std::make_shared<const ModulesAt>(modulesAt(trace, 0));
    ModulesView view;
    view.resize(1000, 700);
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setModules(modules);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY2(view.headline()->text().startsWith(QStringLiteral("At the peak on cuda:0 (after allocator event 12")),
             qPrintable(view.headline()->text()));

    // Rows: Net, its three layers, (outside modules); own bytes sum to the peak, 4,250 B.
    const TableModel* model = view.model();
    QCOMPARE(model->rowCount(), 5);
    qlonglong own = 0;
    for (int r = 0; r < model->rowCount(); ++r) own += raw(model, r, kOwn);
    QCOMPARE(own, 4250);
    const int net = rowNamed(model, QStringLiteral("Net")), first = rowNamed(model, QStringLiteral("Net.0"));
    QVERIFY(net >= 0 && first >= 0);
    QCOMPARE(raw(model, net, kTotal), 4200);  // the model, its layers with it
    QCOMPARE(raw(model, net, kOwn), 0);
    QCOMPARE(raw(model, first, kParameters), 400);
    QCOMPARE(raw(model, first, kActivations), 1000);
    QCOMPARE(raw(model, first, kTemporaries), 2000);  // the peak's backward temporary
    QCOMPARE(raw(model, rowNamed(model, QStringLiteral("(outside modules)")), kOwn), 50);
    QCOMPARE(view.tableData().get(), &modules->table);

    // The icicle: every live byte at its root; category leaves in the categories' colours.
    FlameGraphWidget* icicle = view.icicle();
    QVERIFY(!icicle->rects().empty());
    QCOMPARE(icicle->graph()->nodes[0].bytes, 4250);
    int coloured = 0;
    for (uint32_t n = 0; n < modules->icicle.category.size(); ++n) {
      if (const auto& c = modules->icicle.category[n]) {
        QCOMPARE(icicle->nodeColours().at(n), categoryColor(*c));
        ++coloured;
      } else {
        QVERIFY(n >= icicle->nodeColours().size() || !icicle->nodeColours()[n].isValid());
      }
    }
    QVERIFY(coloured >= 4);

    // A row double-clicked zooms the icicle to its module.
    QSignalSpy zoomed(icicle, &FlameGraphWidget::focusChanged);
    const uint32_t node = view.nodeOfRow(first);
    QVERIFY(node != UINT32_MAX);
    QCOMPARE(icicle->graph()->nodes[node].label, std::string("0"));
    QCOMPARE(icicle->graph()->nodes[node].bytes, 3800);  // its weight, gradient, activation and temporary
    const QModelIndex shown = view.table()->model()->index(first, kModule);
    view.table()->scrollTo(shown);
    const QPoint at = view.table()->visualRect(shown).center();
    QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, {}, at);  // a double click is a press first
    QTest::mouseDClick(view.table()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(zoomed.count(), 1);
    QCOMPARE(icicle->focus(), node);

    // Export: PNG and SVG of the icicle.
    QCOMPARE(renderWidgetImage(view.picture()).size(), icicle->size());
    QVERIFY(renderWidgetSvg(view.picture()).contains("<svg"));
  }

  void saysWhyATraceHasNoModules() {
    auto trace = loadTrace(std::string(SAWTOOTH_TEST_DATA) + "/anatomy_adam_snapshot.pickle");
    QVERIFY2(trace.ok(), trace.ok() ? "" : trace.error().message.c_str());
    auto modules = std::make_shared<const ModulesAt>(modulesAt(*trace, 0));
    QVERIFY(modules->memory.unavailable.starts_with("PyTorch's memory snapshots record no modules"));
    ModulesView view;
    view.setModules(modules);
    QVERIFY(view.headline()->text().startsWith(QStringLiteral("No modules to show: ")));
    QVERIFY(view.headline()->text().contains(toQString(modules->memory.unavailable)));
    QCOMPARE(view.model()->rowCount(), 0);
    QVERIFY(!view.tableData());
    QVERIFY(!view.icicle()->graph());
    QVERIFY(view.recordAgainButton()->isHidden());
  }

  // A program recorded without module tracking: the view offers to record it again with it.
  void offersToRecordAProgramAgainWithModules() {
    auto trace = loadTrace(std::string(SAWTOOTH_TEST_DATA) + "/anatomy_adam_snapshot.pickle");
    QVERIFY(trace.ok());
    trace->format = "sawtooth";
    trace->meta["modules"] = "off";
    trace->meta["command"] = "[\"python\", \"train.py\", \"a b\"]";
    trace->meta["cwd"] = "/work/model";
    trace->meta["env.CUDA_VISIBLE_DEVICES"] = "1";
    ModulesView view;
    view.show();
    view.setModules(std::make_shared<const ModulesAt>(modulesAt(*trace, 0)));
    QVERIFY2(view.headline()->text().contains(QStringLiteral("--modules on")), qPrintable(view.headline()->text()));
    QVERIFY(view.recordAgainButton()->isVisible());
    QVERIFY(!view.icicle()->isVisible());  // no empty panes under the message
    QSignalSpy asked(&view, &ModulesView::recordAgainWithModules);
    view.recordAgainButton()->click();
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().at(0).toStringList(), (QStringList{"python", "train.py", "a b"}));
    QCOMPARE(asked.first().at(1).toString(), QStringLiteral("/work/model"));
    QCOMPARE(asked.first().at(2).toStringList(), QStringList{"CUDA_VISIBLE_DEVICES=1"});
    view.setMessage(QStringLiteral("Loading…"));  // another moment: no offer left behind
    QVERIFY(view.recordAgainButton()->isHidden());
  }
};

QTEST_MAIN(ModulesViewTest)
#include "modules_view_test.moc"
