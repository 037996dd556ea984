#include "app/sawtooth/appearance.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>

namespace sawtooth::app {
namespace {

const QString kKey = QStringLiteral("appearance/scheme");

bool isDark(const QPalette& p) { return p.color(QPalette::Window).lightness() < 128; }

// The desktop's own style and palette, as they were before the app changed them.
struct Original {
  QString style;
  QPalette palette;
};
Original& original() {
  static Original o{QApplication::style() ? QApplication::style()->name() : QString(), QApplication::palette()};
  return o;
}

}  // namespace

ColorScheme savedColorScheme() {
  const QString v = QSettings().value(kKey).toString();
  if (v == QLatin1String("light")) return ColorScheme::Light;
  if (v == QLatin1String("dark")) return ColorScheme::Dark;
  return ColorScheme::System;
}

void saveColorScheme(ColorScheme scheme) { QSettings().setValue(kKey, colorSchemeName(scheme)); }

QString colorSchemeName(ColorScheme scheme) {
  switch (scheme) {
    case ColorScheme::Light:
      return QStringLiteral("light");
    case ColorScheme::Dark:
      return QStringLiteral("dark");
    case ColorScheme::System:
      break;
  }
  return QStringLiteral("system");
}

QPalette darkPalette() {
  const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), button(0x3a, 0x3a, 0x3a), text(0xe6, 0xe6, 0xe6);
  QPalette p(window);
  for (auto group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
    p.setColor(group, QPalette::Window, window);
    p.setColor(group, QPalette::WindowText, text);
    p.setColor(group, QPalette::Base, base);
    p.setColor(group, QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(group, QPalette::Text, text);
    p.setColor(group, QPalette::Button, button);
    p.setColor(group, QPalette::ButtonText, text);
    p.setColor(group, QPalette::BrightText, QColor(0xff, 0x6e, 0x6e));
    p.setColor(group, QPalette::Light, QColor(0x55, 0x55, 0x55));
    p.setColor(group, QPalette::Midlight, QColor(0x46, 0x46, 0x46));
    p.setColor(group, QPalette::Mid, QColor(0x30, 0x30, 0x30));
    p.setColor(group, QPalette::Dark, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(group, QPalette::Shadow, QColor(0x0a, 0x0a, 0x0a));
    p.setColor(group, QPalette::Highlight, QColor(0x2a, 0x82, 0xda));
    p.setColor(group, QPalette::HighlightedText, Qt::white);
    p.setColor(group, QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(group, QPalette::ToolTipText, text);
    p.setColor(group, QPalette::Link, QColor(0x7a, 0xb7, 0xff));
    p.setColor(group, QPalette::LinkVisited, QColor(0xc0, 0x9a, 0xff));
    // Readable on Base, yet plainly not typed text.
    p.setColor(group, QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
  }
  // Disabled controls recede: dim text on a flatter button.
  const QColor dim(0x78, 0x78, 0x78);
  p.setColor(QPalette::Disabled, QPalette::WindowText, dim);
  p.setColor(QPalette::Disabled, QPalette::Text, dim);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, dim);
  p.setColor(QPalette::Disabled, QPalette::Button, QColor(0x30, 0x30, 0x30));
  p.setColor(QPalette::Disabled, QPalette::Light, QColor(0x3a, 0x3a, 0x3a));
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4a, 0x4a));
  p.setColor(QPalette::Disabled, QPalette::HighlightedText, dim);
  p.setColor(QPalette::Disabled, QPalette::PlaceholderText, QColor(0x60, 0x60, 0x60));
  return p;
}

QPalette lightPalette() {
  QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
  QPalette p = fusion ? fusion->standardPalette() : QPalette();
  delete fusion;
  return p;
}

bool desktopPrefersDark() {
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  if (QGuiApplication::styleHints()->colorScheme() != Qt::ColorScheme::Unknown)
    return QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark;
#endif
  // Without Qt's answer: a desktop that gives the app a dark palette, or a GTK theme named dark.
  return isDark(original().palette) ||
         qEnvironmentVariable("GTK_THEME").endsWith(QLatin1String(":dark"), Qt::CaseInsensitive);
}

bool paletteIsDark() { return isDark(QApplication::palette()); }

void applyColorScheme(ColorScheme scheme) {
  const Original& desktop = original();
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  static bool following = false;
  if (!following) {
    following = true;
    QObject::connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, qApp, [] {
      if (savedColorScheme() == ColorScheme::System) applyColorScheme(ColorScheme::System);
    });
  }
#endif
  bool dark = scheme == ColorScheme::Dark;
  if (scheme == ColorScheme::System) {
    dark = desktopPrefersDark();
    if (dark == isDark(desktop.palette)) {  // the desktop's own look says it already
      if (!desktop.style.isEmpty()) QApplication::setStyle(desktop.style);
      QApplication::setPalette(desktop.palette);
      return;
    }
  }
  QApplication::setStyle(QStringLiteral("Fusion"));
  QApplication::setPalette(dark ? darkPalette() : lightPalette());
}

}  // namespace sawtooth::app
