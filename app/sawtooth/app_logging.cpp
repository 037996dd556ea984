#include "app/sawtooth/app_logging.h"

namespace sawtooth::app {

Q_LOGGING_CATEGORY(lcJobs, "sawtooth.app.jobs", QtWarningMsg)
Q_LOGGING_CATEGORY(lcRecorder, "sawtooth.app.recorder", QtWarningMsg)
Q_LOGGING_CATEGORY(lcWindow, "sawtooth.app.window", QtWarningMsg)

}  // namespace sawtooth::app
