#include "views/timeline_bands.h"

#include <QBrush>
#include <QPen>
#include <algorithm>
#include <cstdint>

#include "views/band_strip_item.h"
#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

// Above the plot area's background, below the grid and the series.
constexpr qreal kBandZ = 0.5;
// Narrower bands than this, side by side, are drawn as one (see update()).
constexpr double kMinDistinctPx = 3.0;
// Distinct bands drawn at most; more overlapping ones are drawn as one neutral band.
constexpr size_t kMaxBands = 256;
const std::string kDense = "phases (zoom in to tell them apart)";

}  // namespace

QColor TimelineBands::colorFor(const std::string& phase_name) {
  if (phase_name == kDense) return QColor(0x9e, 0x9e, 0x9e);
  static const std::pair<const char*, QColor> known[] = {
      {"forward", QColor(0x1f, 0x77, 0xb4)},   {"backward", QColor(0xd6, 0x27, 0x28)},
      {"optimizer", QColor(0x2c, 0xa0, 0x2c)}, {"zero_grad", QColor(0x7f, 0x7f, 0x7f)},
      {"recompute", QColor(0xff, 0x7f, 0x0e)}};
  for (const auto& [key, color] : known)
    if (phase_name.find(key) != std::string::npos) return color;
  const size_t h = std::hash<std::string>{}(phase_name);
  return QColor::fromHsv(static_cast<int>(h % 360), 120, 200);
}

void TimelineBands::setNameHidden(const std::string& phase_name, bool hidden) {
  if (hidden) hidden_names_.insert(phase_name);
  else hidden_names_.erase(phase_name);
}

void TimelineBands::update(const TraceAnalysis& analysis, int16_t reference_device, const ZoomWindow& window,
                           bool by_time, const QRectF& plot) {
  shown_ = 0;
  const Trace& trace = analysis.trace();
  const auto& names = analysis.phaseNames();
  // Pixel spans per phase name; neighbouring spans of one name closer than a pixel are merged, so
  // thousands of short annotations cost a handful of rectangles, not thousands.
  std::vector<Span> spans;
  if (visible_ && plot.width() > 0 && window.width() > 0) {
    const PixelMapping to_pixel{window.lo(), window.hi(), plot.left(), plot.right()};
    std::vector<bool> hidden(names.size());
    for (size_t n = 0; n < names.size(); ++n) hidden[n] = hidden_names_.count(names[n]) > 0;
    std::vector<size_t> open(names.size(), SIZE_MAX);  // name -> index in spans of its latest span
    size_t first_open = 0;  // spans before this one were folded into a neutral band: not open
    auto openSpan = [&](uint32_t name) -> Span* {
      const size_t at = open[name];
      return at != SIZE_MAX && at >= first_open ? &spans[at] : nullptr;
    };
    // A neutral band where bands pile up: the last one grows, or a new one starts.
    auto foldIntoNeutral = [&](double px0, double px1) {
      if (!spans.empty() && spans.back().name == &kDense && px0 <= spans.back().px1 + 1.0) {
        spans.back().px0 = std::min(spans.back().px0, px0);
        spans.back().px1 = std::max(spans.back().px1, px1);
      } else {
        spans.push_back(Span{&kDense, PhaseKind::Annotation, px0, px1});
      }
      first_open = spans.size();
    };
    for (const PhaseSpan& phase_span : analysis.phaseSpans(reference_device, by_time)) {
      if (phase_span.x0 > window.hi()) break;  // ordered by x0: nothing further is visible
      if (phase_span.x1 < window.lo() || hidden[phase_span.name]) continue;
      const double px0 = std::max(plot.left(), to_pixel.toPixel(std::max(phase_span.x0, window.lo())));
      const double px1 = std::min(plot.right(), to_pixel.toPixel(std::min(phase_span.x1, window.hi())));
      if (px1 - px0 < 0.5) continue;
      const Phase& p = trace.phases[phase_span.phase];
      // Bands a few pixels wide of alternating names (thousands of short annotations at full zoom)
      // become one neutral band: zooming in separates them again.
      if (px1 - px0 < kMinDistinctPx && !spans.empty() && spans.back().name == &kDense && px0 <= spans.back().px1 + 1.0) {
        spans.back().px1 = std::max(spans.back().px1, px1);
        continue;
      }
      if (Span* latest = openSpan(phase_span.name); latest && px0 <= latest->px1 + 1.0) {
        latest->px1 = std::max(latest->px1, px1);
        continue;
      }
      if (px1 - px0 < kMinDistinctPx && !spans.empty() && px0 <= spans.back().px1 + 1.0 && spans.back().px1 - spans.back().px0 < kMinDistinctPx) {
        const Span last = spans.back();
        spans.pop_back();
        foldIntoNeutral(std::min(last.px0, px0), std::max(last.px1, px1));
        continue;
      }
      // A bounded number of distinct bands: past it (200,000 overlapping annotations of their own
      // names), what follows joins a neutral band instead of a rectangle and a label each.
      if (spans.size() >= kMaxBands) {
        foldIntoNeutral(px0, px1);
        continue;
      }
      spans.push_back(Span{&names[phase_span.name], p.kind, px0, px1});
      open[phase_span.name] = spans.size() - 1;
    }
  }
  draw(spans, plot);
}

void TimelineBands::update(const std::vector<TimelineFrame::Band>& bands, const ZoomWindow& window, const QRectF& plot) {
  shown_ = 0;
  std::vector<Span> spans;
  if (visible_ && plot.width() > 0 && window.width() > 0) {
    const PixelMapping to_pixel{window.lo(), window.hi(), plot.left(), plot.right()};
    for (const TimelineFrame::Band& band : bands) {
      if (band.x0 > window.hi() || band.x1 < window.lo() || hidden_names_.count(band.name)) continue;
      const double px0 = std::max(plot.left(), to_pixel.toPixel(std::max(band.x0, window.lo())));
      const double px1 = std::min(plot.right(), to_pixel.toPixel(std::min(band.x1, window.hi())));
      if (px1 - px0 < 0.5) continue;
      if (spans.size() >= kMaxBands) break;
      spans.push_back(Span{band.name == kDense ? &kDense : &band.name,
                           band.annotation ? PhaseKind::Annotation : PhaseKind::Phase, px0, px1});
    }
  }
  draw(spans, plot);
}

void TimelineBands::draw(const std::vector<Span>& spans, const QRectF& plot) {
  // Names where they fit their band and cover no name already placed (overlapping bands share the
  // plot's top edge).
  std::vector<QRectF> named;
  if (!strip_) {
    strip_ = new BandStripItem(chart_);
    strip_->setZValue(kBandZ);
  }
  std::vector<BandStripItem::Band> columns;
  columns.reserve(spans.size());
  for (const Span& span : spans) {
    if (static_cast<size_t>(shown_) == labels_.size()) {
      auto* label = new QGraphicsSimpleTextItem(chart_);
      label->setZValue(kBandZ + 0.1);
      QFont font = label->font();
      font.setPointSizeF(7.5);
      label->setFont(font);
      labels_.push_back(label);
    }
    QColor c = colorFor(*span.name);
    c.setAlpha(span.kind == PhaseKind::Annotation ? 28 : 36);
    columns.push_back(BandStripItem::Band{span.px0, span.px1, c});
    auto* label = labels_[static_cast<size_t>(shown_)];
    label->setText(toQString(*span.name));
    label->setBrush(colorFor(*span.name).darker(140));
    label->setPos(span.px0 + 2, plot.top() + 1);
    const QRectF at(label->pos(), label->boundingRect().size());
    bool free = at.width() + 4 < span.px1 - span.px0;
    for (size_t k = 0; free && k < named.size(); ++k) free = !at.intersects(named[k]);
    label->setVisible(free);
    if (free) named.push_back(at);
    ++shown_;
  }
  for (size_t i = static_cast<size_t>(shown_); i < labels_.size(); ++i) labels_[i]->hide();
  strip_->setBands(plot, std::move(columns));
}

void TimelineBands::hideLabelsOver(const std::vector<QRectF>& rects) {
  for (int i = 0; i < shown_; ++i) {
    QGraphicsSimpleTextItem* label = labels_[static_cast<size_t>(i)];
    if (!label->isVisible()) continue;
    const QRectF r = label->sceneBoundingRect();
    for (const QRectF& other : rects)
      if (r.intersects(other)) {
        label->hide();
        break;
      }
  }
}

std::vector<QRectF> TimelineBands::labelRects() const {
  std::vector<QRectF> out;
  for (int i = 0; i < shown_; ++i)
    if (labels_[static_cast<size_t>(i)]->isVisible()) out.push_back(labels_[static_cast<size_t>(i)]->sceneBoundingRect());
  return out;
}

}  // namespace sawtooth::views
