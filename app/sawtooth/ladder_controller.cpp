#include "app/sawtooth/ladder_controller.h"

#include <algorithm>

#include "core/analysis/ladder.h"
#include "core/analysis/ladder_measured.h"
#include "core/io/source_lines.h"

namespace sawtooth::app {

LadderController::LadderController(JobRunner& jobs, views::LadderView* view) : QObject(view), jobs_(jobs), view_(view) {
  connect(view_, &views::LadderView::programLadderRequested, this, &LadderController::compute);
}

void LadderController::setSources(std::vector<Source> sources) {
  const bool same = sources.size() == sources_.size() &&
                    std::equal(sources.begin(), sources.end(), sources_.begin(), [](const Source& a, const Source& b) {
                      return a.name == b.name && a.analysis == b.analysis;
                    });
  if (same && view_->report()) return;
  sources_ = std::move(sources);
  QStringList names;
  for (const Source& s : sources_) names << s.name;
  view_->setSources(names);
  compute(view_->source(), view_->deviceMemory(), view_->shardDevices(), view_->linkBandwidth());
}

void LadderController::compute(int index, qint64 device_memory, int shard_devices, double link_gb_per_s) {
  if (index < 0 || index >= static_cast<int>(sources_.size())) return;
  view_->setReport(nullptr);
  const auto chosen = static_cast<size_t>(index);
  if (!sources_[chosen].analysis) {
    view_->setReportError(tr("%1 is read on demand (past the whole-file budget): predicting its ladder reads every "
                             "event. Raise Settings ▸ Reading limits to read it whole; its runs' own measurements are "
                             "in the seed's ladder above.")
                              .arg(sources_[chosen].name));
    return;
  }
  std::vector<std::pair<std::string, std::shared_ptr<const TraceAnalysis>>> all;
  size_t chosen_in_all = 0;
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (!sources_[i].analysis) continue;  // read on demand: its runs are not measured against
    if (i == chosen) chosen_in_all = all.size();
    all.emplace_back(sources_[i].name.toStdString(), sources_[i].analysis);
  }
  jobs_.run<std::shared_ptr<const LadderReport>>(
      QStringLiteral("ladder"), tr("Predicting the ladder"), view_,
      [all, chosen = chosen_in_all, device_memory, shard_devices, link_gb_per_s](Progress&) -> Result<std::shared_ptr<const LadderReport>> {
        const Trace& trace = all[chosen].second->trace();
        SourceLines sources;
        LadderSelection selection;
        selection.source = [&sources](std::string_view file, uint32_t line) { return sources.line(file, line); };
        auto input = ladderInput(trace, selection);
        if (!input) return input.error();
        LadderOptions options;
        options.device_memory = device_memory;
        options.shard_devices = shard_devices;
        options.link_gb_per_s = link_gb_per_s;
        LadderReport report = predictLadder(*input, options);
        std::vector<MeasuredRung> measured;
        for (size_t i = 0; i < all.size(); ++i)
          for (MeasuredRung& m : measuredRungs(*input, all[i].second->trace(), all[i].first, i == chosen, "",
                                               /*same_program_only=*/true))
            measured.push_back(std::move(m));
        attachMeasured(report, measured);
        return std::make_shared<const LadderReport>(std::move(report));
      },
      [view = view_](std::shared_ptr<const LadderReport> report) { view->setReport(std::move(report)); },
      [view = view_](const QString& error) { view->setReportError(error); });
}

}  // namespace sawtooth::app
