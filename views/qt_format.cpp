#include "views/qt_format.h"

#include "core/util/format_bytes.h"

namespace sawtooth::views {

QString bytesText(qint64 bytes) { return QString::fromStdString(formatBytes(bytes)); }
QString durationText(qint64 ns) { return QString::fromStdString(formatDuration(ns)); }
QString addressText(quint64 addr) { return QStringLiteral("0x%1").arg(addr, 0, 16); }
QString toQString(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

}  // namespace sawtooth::views
