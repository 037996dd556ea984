#pragma once
// The app's logging categories, quiet by default (warnings only). Turn one on with
// QT_LOGGING_RULES="sawtooth.app.jobs.debug=true".

#include <QLoggingCategory>

namespace sawtooth::app {

Q_DECLARE_LOGGING_CATEGORY(lcJobs)      // sawtooth.app.jobs: each job's start, progress, end, supersession
Q_DECLARE_LOGGING_CATEGORY(lcRecorder)  // sawtooth.app.recorder: the recorder child process and its lines
Q_DECLARE_LOGGING_CATEGORY(lcWindow)    // sawtooth.app.window: tabs, files, exports

}  // namespace sawtooth::app
