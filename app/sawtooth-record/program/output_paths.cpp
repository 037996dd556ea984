#include "app/sawtooth-record/program/output_paths.h"

#include <fmt/format.h>

#include "app/sawtooth-record/program/posix_files.h"
#include "core/recording/rank_files.h"

namespace sawtooth::record {
namespace {

constexpr std::string_view kExtension = ".sawtooth";
using posix::exists;

}  // namespace

std::string derivedPath(const std::string& out, const std::string& tag) {
  if (out.size() > kExtension.size() && out.ends_with(kExtension))
    return fmt::format("{}.{}{}", out.substr(0, out.size() - kExtension.size()), tag, kExtension);
  return fmt::format("{}.{}{}", out, tag, kExtension);
}

std::string defaultOutPath(const std::vector<std::string>& command, std::time_t now) {
  std::string stem = command.empty() ? std::string("program") : posix::fileName(command.front());
  for (const std::string& arg : command)
    if (arg.size() > 3 && arg.ends_with(".py")) {
      stem = posix::stem(arg);
      break;
    }
  std::tm local{};
  localtime_r(&now, &local);
  char when[32];
  std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", &local);
  std::string path = fmt::format("{}-{}{}", stem, when, kExtension);
  for (int n = 2; exists(path); ++n) path = fmt::format("{}-{}-{}{}", stem, when, n, kExtension);
  return path;
}

std::optional<std::string> checkOutFolder(const std::string& out) {
  if (posix::isDirectory(out)) return fmt::format("--out {}: is a folder", out);
  const std::string parent = posix::parentOf(out);
  if (!posix::isDirectory(parent)) return fmt::format("--out {}: the folder {} does not exist", out, parent);
  // What is there is refused first, whoever may write the folder (/dev/full as any user).
  if (posix::exists(out) && !posix::isRegularFile(out))
    return fmt::format("--out {}: exists and is not a regular file; it is never replaced", out);
  if (!posix::writable(parent)) return fmt::format("--out {}: the folder {} is not writable", out, parent);
  return std::nullopt;
}

Result<std::unique_ptr<OutputPaths>> OutputPaths::claimFirst(const std::string& out, bool force) {
  if (auto problem = checkOutFolder(out)) return Error{*problem};
  auto claim = OutputClaim::claim(out, force ? OutputClaim::Existing::Replace : OutputClaim::Existing::Refuse);
  if (!claim) return Error{"--out " + claim.error().message};
  auto paths = std::make_unique<OutputPaths>(out, force);
  paths->main_claim_.emplace(std::move(*claim));
  return paths;
}

std::string OutputPaths::unused(const std::string& path) {
  std::string candidate = path;
  for (int n = 2; claimed_.count(candidate) || (!force_ && exists(candidate)); ++n)
    candidate = derivedPath(path, std::to_string(n));
  claimed_.insert(candidate);
  return candidate;
}

std::string OutputPaths::pathLocked(int pid, int rank, bool child) {
  if (rank >= 0) return unused(recording::rankFilePath(out_, rank));
  if (!main_taken_ && !child) {
    main_taken_ = true;
    claimed_.insert(out_);
    return out_;
  }
  return unused(derivedPath(out_, fmt::format("pid{}", pid)));
}

std::string OutputPaths::pathFor(int pid, int rank, bool child) {
  std::lock_guard<std::mutex> lock(mutex_);
  return pathLocked(pid, rank, child);
}

Result<OutputClaim> OutputPaths::claim(int pid, int rank, bool child) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string path = pathLocked(pid, rank, child);
  if (path == out_ && main_claim_) {
    OutputClaim claim = std::move(*main_claim_);
    main_claim_.reset();
    return claim;
  }
  return OutputClaim::claim(path, force_ ? OutputClaim::Existing::Replace : OutputClaim::Existing::Refuse);
}

std::string OutputPaths::mergedPath() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!main_taken_) {
    main_taken_ = true;
    claimed_.insert(out_);
    if (main_claim_) main_claim_->release();  // the merge's writer claims it again
    main_claim_.reset();
    return out_;
  }
  return unused(derivedPath(out_, "ranks"));
}

void OutputPaths::abandonUnused() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (main_claim_) main_claim_->abandon();
  main_claim_.reset();
}

}  // namespace sawtooth::record
