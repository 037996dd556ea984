#pragma once
// The views' logging categories, quiet by default (warnings only). Turn one on with
// QT_LOGGING_RULES="sawtooth.views.timeline.debug=true".

#include <QLoggingCategory>

namespace sawtooth::views {

Q_DECLARE_LOGGING_CATEGORY(lcTimeline)  // sawtooth.views.timeline: rebuilds, refreshes, zoom
Q_DECLARE_LOGGING_CATEGORY(lcTables)    // sawtooth.views.tables: models reset with new rows or tables

}  // namespace sawtooth::views
