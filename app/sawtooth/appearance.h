#pragma once
// Light or dark: the app follows the desktop's colour scheme (Qt 6.5's QStyleHints::colorScheme
// where the Qt in use has it, else the platform's own palette), or the choice made in
// Settings ▸ Appearance (kept in QSettings "appearance/scheme"). The dark palette sets every
// colour group, so that placeholder text stays readable and a disabled button looks disabled.

#include <QPalette>
#include <QString>

namespace sawtooth::app {

enum class ColorScheme { System, Light, Dark };

ColorScheme savedColorScheme();
void saveColorScheme(ColorScheme scheme);
QString colorSchemeName(ColorScheme scheme);  // "system", "light", "dark"

// The palettes the app uses when a scheme is chosen (Fusion's colours).
QPalette darkPalette();
QPalette lightPalette();
// Whether the desktop asks for dark (false where it cannot say).
bool desktopPrefersDark();

// Sets the application's style and palette for `scheme` (System: the desktop's choice, followed
// as it changes where Qt reports it). Call after the QApplication exists.
void applyColorScheme(ColorScheme scheme);
// Whether the application's palette is dark now.
bool paletteIsDark();

}  // namespace sawtooth::app
