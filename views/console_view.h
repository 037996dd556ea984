#pragma once
// A recording's console: what the recorded program (and the recorder) wrote on stdout and stderr,
// in the order it arrived, searchable (Enter: next match, Shift+Enter: previous). It keeps the
// last kMaxLines lines: a program that prints without end cannot take the app's memory.

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QWidget>

namespace sawtooth::views {

struct ConsoleChunk {
  QString text;
  bool error = false;  // from stderr
};

class ConsoleView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxLines = 50'000;

  explicit ConsoleView(QWidget* parent = nullptr);

  // A chunk of output as it came (not necessarily whole lines); `error`: from stderr.
  void append(const QString& text, bool error = false);
  // Replaces everything with `chunks` (a finished recording's whole console).
  void setChunks(const QList<ConsoleChunk>& chunks);
  QString text() const { return edit_->toPlainText(); }
  bool isEmpty() const { return edit_->document()->isEmpty(); }

  // Selects the next (or previous) match of the search box's text; false when there is none.
  bool findNext(bool backward = false);
  QLineEdit* searchEdit() const { return search_; }
  QPlainTextEdit* editor() const { return edit_; }
  QString matchText() const { return matches_->text(); }

 private:
  void updateMatches();

  QLineEdit* search_;
  QLabel* matches_;
  QPlainTextEdit* edit_;
};

}  // namespace sawtooth::views
