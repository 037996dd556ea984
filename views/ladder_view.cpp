#include "views/ladder_view.h"

#include <QScrollArea>
#include <QVBoxLayout>

#include "views/qt_format.h"

namespace sawtooth::views {

LadderView::LadderView(QWidget* parent) : QWidget(parent), body_(new QLabel(this)) {
  body_->setWordWrap(true);
  body_->setTextFormat(Qt::RichText);
  body_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  body_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  connect(body_, &QLabel::linkActivated, this, [this](const QString& link) {
    const QStringList parts = link.split('/');
    emit chartRequested(parts.value(0), parts.value(1));
  });
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(body_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(scroll);
  setRungs({});
}

void LadderView::setRungs(std::vector<LadderRung> rungs) {
  rungs_ = std::move(rungs);
  QString html = tr("<h2>The ladder, measured here</h2>"
                    "<p>The seed chapter's ladder of remedies, each rung with the numbers of the recordings open "
                    "in this window. Only measured numbers; a rung without a recording says so.</p><table cellspacing=8>");
  for (const LadderRung& r : rungs_) {
    QString finding = toQString(r.finding).toHtmlEscaped();
    if (r.measured)
      finding += QStringLiteral(" &nbsp;<a href=\"%1/%2\">show the chart</a>").arg(toQString(r.workload), toQString(r.run));
    html += QStringLiteral("<tr><td valign=top><b>%1</b></td><td valign=top>→ %2</td><td valign=top%3>%4</td></tr>")
                .arg(toQString(r.symptom).toHtmlEscaped(), toQString(r.remedy).toHtmlEscaped(),
                     r.measured ? QString() : QStringLiteral(" style=\"color:#777\""), finding);
  }
  html += QStringLiteral("</table>");
  body_->setText(html);
}

QString LadderView::text() const {
  QStringList lines;
  for (const LadderRung& r : rungs_)
    lines << QStringLiteral("%1 → %2: %3").arg(toQString(r.symptom), toQString(r.remedy), toQString(r.finding));
  return lines.join('\n');
}

}  // namespace sawtooth::views
