#pragma once
// The job behind the ladder view's program section (JobRunner): the ladder for the recording the
// user picked (core/analysis/ladder.h), with the measured rungs of that recording's other runs and
// of every other open recording beside its rows. A new choice (recording, device size) supersedes
// the one being computed.

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "app/sawtooth/job_runner.h"
#include "core/analysis/trace_analysis.h"
#include "views/ladder_view.h"

namespace sawtooth::app {

class LadderController : public QObject {
  Q_OBJECT
 public:
  struct Source {
    QString name;  // as the tab names it
    std::shared_ptr<const TraceAnalysis> analysis;  // null: read on demand (its ladder is not predicted)
  };
  LadderController(JobRunner& jobs, views::LadderView* view);

  // The open recordings; recomputes the ladder for the view's current choice.
  void setSources(std::vector<Source> sources);

 private:
  void compute(int index, qint64 device_memory, int shard_devices, double link_gb_per_s);

  JobRunner& jobs_;
  views::LadderView* view_;
  std::vector<Source> sources_;
};

}  // namespace sawtooth::app
