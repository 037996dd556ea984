#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest>

#include "views/table_csv.h"

using namespace sawtooth::views;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TableCsvTest : public QObject {
  Q_OBJECT

 private slots:
  void quotesOnlyWhatCsvNeeds() {
    QTemporaryDir dir;
    const QString path = dir.filePath("t.csv");
    const QStringList header{QStringLiteral("name"), QStringLiteral("bytes")};
    const QList<QStringList> rows{{QStringLiteral("plain"), QStringLiteral("42")},
                                  {QStringLiteral("a,b"), QStringLiteral("say \"hi\"")},
                                  {QStringLiteral("two\nlines"), QString()}};
    QVERIFY(writeCsv(path, header, static_cast<int>(rows.size()), [&](int r) { return rows[r]; }));
    QCOMPARE(readAll(path), QByteArray("name,bytes\nplain,42\n\"a,b\",\"say \"\"hi\"\"\"\n\"two\nlines\",\n"));
  }

  void writesWhatTheModelShows() {
    QStandardItemModel model(2, 2);
    model.setHorizontalHeaderLabels({QStringLiteral("kind"), QStringLiteral("size, bytes")});
    model.setItem(0, 0, new QStandardItem(QStringLiteral("alloc")));
    model.setItem(0, 1, new QStandardItem(QStringLiteral("512")));
    model.setItem(1, 0, new QStandardItem(QStringLiteral("free")));
    model.setItem(1, 1, new QStandardItem(QStringLiteral("512")));
    QTemporaryDir dir;
    QVERIFY(writeModelCsv(model, dir.filePath("m.csv")));
    QCOMPARE(readAll(dir.filePath("m.csv")), QByteArray("kind,\"size, bytes\"\nalloc,512\nfree,512\n"));
  }

  void anUnwritablePathIsAnErrorNamingIt() {
    QString error;
    const QString path = QStringLiteral("/nonexistent-dir/t.csv");
    QVERIFY(!writeCsv(path, {QStringLiteral("x")}, 0, [](int) { return QStringList(); }, &error));
    QVERIFY2(error.contains(path), qPrintable(error));
  }
};

QTEST_MAIN(TableCsvTest)
#include "table_csv_test.moc"
