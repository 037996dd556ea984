#include "views/console_view.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>

namespace sawtooth::views {
namespace {

// Shift+Enter in the search box looks backwards; Enter forwards.
class SearchKeys : public QObject {
 public:
  SearchKeys(ConsoleView* console) : QObject(console), console_(console) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::KeyPress) return QObject::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() != Qt::Key_Return && key->key() != Qt::Key_Enter) return QObject::eventFilter(watched, event);
    console_->findNext(key->modifiers() & Qt::ShiftModifier);
    return true;
  }

 private:
  ConsoleView* console_;
};

}  // namespace

ConsoleView::ConsoleView(QWidget* parent)
    : QWidget(parent), search_(new QLineEdit(this)), matches_(new QLabel(this)), edit_(new QPlainTextEdit(this)) {
  setObjectName(QStringLiteral("console"));
  edit_->setReadOnly(true);
  edit_->setMaximumBlockCount(kMaxLines);
  edit_->setLineWrapMode(QPlainTextEdit::NoWrap);
  edit_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  edit_->setPlaceholderText(tr("The program's output (stdout and stderr) appears here."));
  search_->setPlaceholderText(tr("Search the output (Enter: next, Shift+Enter: previous)"));
  search_->setClearButtonEnabled(true);
  search_->installEventFilter(new SearchKeys(this));
  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  top->addWidget(search_, 1);
  top->addWidget(matches_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(edit_, 1);
  connect(search_, &QLineEdit::textChanged, this, [this] {
    updateMatches();
    if (!search_->text().isEmpty()) {
      // Search from the top while typing, so that the first match is the one shown.
      edit_->moveCursor(QTextCursor::Start);
      findNext();
    }
  });
}

void ConsoleView::append(const QString& chunk, bool error) {
  if (chunk.isEmpty()) return;
  QScrollBar* bar = edit_->verticalScrollBar();
  const bool at_end = bar->value() >= bar->maximum() - 2;
  QTextCursor cursor(edit_->document());
  cursor.movePosition(QTextCursor::End);
  QTextCharFormat format;
  if (error) {
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    format.setForeground(dark ? QColor(0xef, 0x9a, 0x9a) : QColor(0xb7, 0x1c, 0x1c));
  }
  QString text = chunk;
  text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
  // A lone carriage return (a progress bar redrawing its line) starts the line again.
  const QStringList parts = text.split(QLatin1Char('\r'));
  for (qsizetype i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      cursor.movePosition(QTextCursor::StartOfBlock, QTextCursor::KeepAnchor);
      cursor.removeSelectedText();
    }
    cursor.insertText(parts[i], format);
  }
  if (at_end) bar->setValue(bar->maximum());
  if (!search_->text().isEmpty()) updateMatches();
}

void ConsoleView::setChunks(const QList<ConsoleChunk>& chunks) {
  edit_->clear();
  for (const ConsoleChunk& c : chunks) append(c.text, c.error);
}

bool ConsoleView::findNext(bool backward) {
  const QString wanted = search_->text();
  if (wanted.isEmpty()) return false;
  const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
  if (edit_->find(wanted, flags)) return true;
  // Wrap around once.
  const QTextCursor kept = edit_->textCursor();
  edit_->moveCursor(backward ? QTextCursor::End : QTextCursor::Start);
  if (edit_->find(wanted, flags)) return true;
  edit_->setTextCursor(kept);
  return false;
}

void ConsoleView::updateMatches() {
  const QString wanted = search_->text();
  if (wanted.isEmpty()) {
    matches_->clear();
    return;
  }
  const qsizetype n = edit_->document()->toPlainText().count(wanted, Qt::CaseInsensitive);
  matches_->setText(n == 0 ? tr("no match") : n == 1 ? tr("1 match") : tr("%L1 matches").arg(n));
}

}  // namespace sawtooth::views
