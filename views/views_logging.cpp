#include "views/views_logging.h"

namespace sawtooth::views {

Q_LOGGING_CATEGORY(lcTimeline, "sawtooth.views.timeline", QtWarningMsg)
Q_LOGGING_CATEGORY(lcTables, "sawtooth.views.tables", QtWarningMsg)

}  // namespace sawtooth::views
