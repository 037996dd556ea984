#include "app/sawtooth-record/distributed_recording.h"

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/recording/exit_code.h"
#include "workloads/experiments/rendezvous_store.h"
#include "core/io/trace_merge.h"
#include "app/sawtooth-record/rank_launcher.h"

namespace sawtooth::record {

int recordDistributed(const DistributedRequest& request, JsonLinesProgress& progress, const std::atomic<bool>& stop) {
  auto store = workloads::RendezvousStore::start();
  if (!store) {
    std::fprintf(stderr, "sawtooth-record: %s\n", store.error().message.c_str());
    return recording::code(recording::ExitCode::Internal);
  }
  const std::string backend = request.cuda ? "nccl" : "gloo";
  const nlohmann::json start = {{"workload", request.workload},
                                {"device", request.cuda ? "cuda" : "cpu"},
                                {"parameters", request.parameters},
                                {"ranks", request.ranks},
                                {"backend", backend},
                                {"store_port", (*store)->port()}};
  progress.event("start",
                 fmt::format("{} on {} rank{} ({}, {})", request.workload, request.ranks, request.ranks == 1 ? "" : "s",
                             backend, request.cuda ? "one GPU per rank" : "the CPU"),
                 start.dump());

  RankLaunch launch;
  launch.executable = request.executable;
  launch.args = request.rank_args;
  launch.out = request.out;
  launch.ranks = request.ranks;
  launch.store_port = (*store)->port();
  launch.timeout = request.timeout;
  const RankLaunchResult ranks = runRanks(launch, progress, stop);
  if (ranks.exit_code != 0) {
    nlohmann::json extra = {{"kind", ranks.kind}};
    if (ranks.failed_rank >= 0) extra["rank"] = ranks.failed_rank;
    progress.event("error", ranks.message, extra.dump());
    std::fprintf(stderr, "sawtooth-record: %s\n", ranks.message.c_str());
    progress.event("finished", "no merged trace: not every rank succeeded; each rank's own trace is kept",
                   nlohmann::json({{"out", ""}, {"exit_code", ranks.exit_code}, {"rank_files", ranks.rank_files}}).dump());
    return ranks.exit_code;
  }

  progress.event("merge", fmt::format("merging {} rank trace{} into {}", request.ranks, request.ranks == 1 ? "" : "s",
                                      request.out));
  if (Status st = mergeRankFiles(ranks.rank_files, request.out); !st) {
    std::fprintf(stderr, "sawtooth-record: merging the ranks' traces into %s: %s\n", request.out.c_str(),
                 st.error().message.c_str());
    progress.event("error", "merging the ranks' traces failed: " + st.error().message,
                   nlohmann::json({{"kind", "internal"}}).dump());
    return recording::code(recording::ExitCode::Internal);
  }
  progress.event("finished", fmt::format("{} rank{} recorded and merged into {}", request.ranks,
                                         request.ranks == 1 ? "" : "s", request.out),
                 nlohmann::json({{"out", request.out}, {"exit_code", 0}, {"rank_files", ranks.rank_files}}).dump());
  return 0;
}

}  // namespace sawtooth::record
