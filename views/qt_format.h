#pragma once
// QString wrappers of core's formatting, and names shown in the UI.

#include <QString>

#include "core/model/action.h"

namespace sawtooth::views {

QString bytesText(qint64 bytes);
QString durationText(qint64 ns);
QString addressText(quint64 addr);
QString toQString(std::string_view text);

}  // namespace sawtooth::views
