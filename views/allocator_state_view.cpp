#include "views/allocator_state_view.h"

#include <QHBoxLayout>
#include <QVBoxLayout>

#include "views/qt_format.h"

namespace sawtooth::views {

AllocatorStateView::AllocatorStateView(QWidget* parent)
    : QWidget(parent),
      headline_(new QLabel(this)),
      oom_(new QLabel(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QSpinBox(this)),
      follow_(new QCheckBox(tr("Follow the timeline"), this)),
      scroll_(new QScrollArea(this)),
      map_(new SegmentMapWidget) {
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  oom_->setWordWrap(true);
  oom_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  oom_->setStyleSheet(QStringLiteral("QLabel { color: #b71c1c; }"));
  oom_->hide();
  follow_->setChecked(true);
  follow_->setToolTip(tr("Show the state at the event the timeline's cursor is on"));
  spin_->setKeyboardTracking(false);
  spin_->setToolTip(tr("Allocator event of the device (−1: before the first)"));
  setEventCount(0);
  scroll_->setWidget(map_);
  scroll_->setWidgetResizable(true);

  auto* scrub = new QHBoxLayout;
  scrub->addWidget(new QLabel(tr("Event:"), this));
  scrub->addWidget(slider_, 1);
  scrub->addWidget(spin_);
  scrub->addWidget(follow_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(scrub);
  layout->addWidget(headline_);
  layout->addWidget(oom_);
  layout->addWidget(scroll_, 1);

  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (syncing_) return;
    syncing_ = true;
    spin_->setValue(v);
    syncing_ = false;
    emit positionRequested(v);
  });
  connect(spin_, &QSpinBox::valueChanged, this, [this](int v) {
    if (syncing_) return;
    syncing_ = true;
    slider_->setValue(v);
    syncing_ = false;
    emit positionRequested(v);
  });
}

void AllocatorStateView::setEventCount(qint64 events) {
  syncing_ = true;
  const int last = static_cast<int>(std::min<qint64>(events - 1, INT_MAX));
  slider_->setRange(-1, last);
  spin_->setRange(-1, last);
  slider_->setPageStep(std::max(1, static_cast<int>(events / 100)));
  syncing_ = false;
}

void AllocatorStateView::setPosition(qint64 position) {
  syncing_ = true;
  slider_->setValue(static_cast<int>(position));
  spin_->setValue(static_cast<int>(position));
  syncing_ = false;
}

void AllocatorStateView::setMap(std::shared_ptr<const SegmentMap> map) {
  if (map) {
    setPosition(map->state.position);
    headline_->setText(toQString(map->headline));
    if (map->oom) {
      QString text = QStringLiteral("<b>%1</b>").arg(toQString(map->oom->summary).toHtmlEscaped());
      for (const std::string& line : map->oom->details) text += QStringLiteral("<br>") + toQString(line).toHtmlEscaped();
      oom_->setText(text);
    }
    oom_->setVisible(map->oom.has_value());
  }
  map_->setMap(std::move(map));
}

void AllocatorStateView::setMessage(const QString& text) {
  headline_->setText(text);
  oom_->hide();
  map_->setMap(nullptr);
}

PaintedWidget AllocatorStateView::picture() const { return {map_, QSize(map_->width(), map_->sizeHint().height())}; }

}  // namespace sawtooth::views
