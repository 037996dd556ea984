#include "capture/ingest/process_recording.h"

#include <algorithm>

#include <fmt/format.h>

#include "capture/ingest/wire_reader.h"
#include "core/io/native_schema.h"
#include "core/model/meta_keys.h"

namespace sawtooth::record {
namespace {

using capture::CaptureRecord;
using capture::RecordKind;

// Bounds on what one connection may define (a program cannot make the recorder grow without end).
constexpr size_t kMaxFramesPerConnection = 4'000'000;
constexpr size_t kMaxStacksPerConnection = 4'000'000;
constexpr size_t kMaxNames = 1'000'000;
constexpr int64_t kHeartbeatNs = 500'000'000;
constexpr uint64_t kAnnotation = 1;  // CaptureRecord::stream of a phase marker that is an annotation
constexpr std::string_view kOptimizerPhase = "optimizer";  // the shim's: its end ends a step

std::string jsonText(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string joinCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    out += plain ? a : "'" + a + "'";
  }
  return out;
}

}  // namespace

ProcessRecording::~ProcessRecording() = default;

bool ProcessRecording::connected() const {
  return std::any_of(connections_.begin(), connections_.end(), [](const auto& c) { return c.second.open; });
}

bool ProcessRecording::clean() const {
  return !connections_.empty() &&
         std::all_of(connections_.begin(), connections_.end(), [](const auto& c) { return c.second.bye; });
}

std::string ProcessRecording::describe() const {
  return rank_ >= 0 ? fmt::format("pid {} (rank {})", pid_, rank_) : fmt::format("pid {}", pid_);
}

Status ProcessRecording::onHello(int connection, const nlohmann::json& hello) {
  if (!hello.is_object()) return Error{"hello is not a JSON object"};
  if (connections_.count(connection)) return Error{"a second hello on one connection"};
  Connection c;
  c.role = hello.value("role", std::string("unknown"));
  connections_.emplace(connection, std::move(c));
  for (const auto& [k, v] : hello.items())
    if (k != "role" && k != "pid") identity_[k] = v;
  if (hello.contains("rank") && hello["rank"].is_number_integer()) {
    const int64_t rank = hello["rank"].get<int64_t>();
    if (rank >= 0 && rank < 1'000'000) rank_ = static_cast<int>(rank);
  }
  return Ok{};
}

void ProcessRecording::onConnectionClosed(int connection) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  it->second.open = false;
  for (int s = 0; s < 256; ++s) merger_.close(key(connection, static_cast<uint8_t>(s)));
}

uint32_t ProcessRecording::internName(const std::string& name) {
  auto [it, inserted] = name_ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(name);
  return it->second;
}

void ProcessRecording::onMeta(const nlohmann::json& meta) {
  for (const auto& [k, v] : meta.items()) {
    pending_meta_[k] = jsonText(v);
    if (sink_) sink_->setMeta(k, jsonText(v));
  }
}

Status ProcessRecording::onFrame(int connection, const wire::Header& h, std::string_view payload) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return Error{"a frame before the hello"};
  Connection& c = it->second;
  switch (h.type) {
    case wire::FrameType::Hello:
      return Error{"a second hello on one connection"};
    case wire::FrameType::Meta: {
      auto j = nlohmann::json::parse(payload, nullptr, false);
      if (!j.is_object()) return Error{"meta frame is not a JSON object"};
      onMeta(j);
      return Ok{};
    }
    case wire::FrameType::Records:
      return onRecords(connection, c, h.stream, payload);
    case wire::FrameType::Frames: {
      std::vector<FrameDef> defs;
      if (Status st = decodeFrames(payload, defs); !st) return st;
      if (c.frames.size() + defs.size() > kMaxFramesPerConnection) return Error{"too many frames on one connection"};
      for (auto& f : defs) c.frames[f.id] = Frame{std::move(f.name), std::move(f.file), f.line};
      return Ok{};
    }
    case wire::FrameType::Stacks: {
      std::vector<StackDef> defs;
      if (Status st = decodeStacks(payload, defs); !st) return st;
      if (c.stacks.size() + defs.size() > kMaxStacksPerConnection) return Error{"too many stacks on one connection"};
      for (const auto& s : defs) {
        auto frames = std::make_shared<StackFrames>();
        frames->reserve(s.frames.size());
        for (uint32_t f : s.frames) {
          auto fr = c.frames.find(f);
          if (fr == c.frames.end()) return Error{fmt::format("stack {} names frame {}, which was never defined", s.id, f)};
          frames->push_back(fr->second);
        }
        c.stacks[s.id] = std::move(frames);
      }
      return Ok{};
    }
    case wire::FrameType::Names: {
      std::vector<NameDef> defs;
      if (Status st = decodeNames(payload, defs); !st) return st;
      if (c.names.size() + defs.size() > kMaxNames) return Error{"too many names on one connection"};
      for (auto& n : defs) c.names[n.id] = std::move(n.text);
      return Ok{};
    }
    case wire::FrameType::Kernels:
      return onKernels(connection, c, payload);
    case wire::FrameType::Watermark:
    case wire::FrameType::Idle: {
      auto t = decodeTime(payload);
      if (!t) return t.error();
      if (h.type == wire::FrameType::Idle) merger_.idle(key(connection, h.stream), *t);
      else merger_.watermark(key(connection, h.stream), *t);
      return Ok{};
    }
    case wire::FrameType::Notice: {
      auto j = nlohmann::json::parse(payload, nullptr, false);
      if (!j.is_object()) return Error{"notice frame is not a JSON object"};
      const std::string message = j.value("message", std::string());
      const std::string level = j.value("level", std::string("info"));
      if (context_.notify && !message.empty()) context_.notify(level, fmt::format("{}: {}", describe(), message));
      std::string& notices = pending_meta_["notices"];
      notices += (notices.empty() ? "" : "\n") + message;
      if (sink_) sink_->setMeta("notices", notices);
      return Ok{};
    }
    case wire::FrameType::Bye: {
      auto j = nlohmann::json::parse(payload, nullptr, false);
      c.bye = true;
      if (j.is_object()) {
        c.bye_reason = j.value("reason", std::string());
        c.bye_details = j.dump();
        if (j.contains("dropped") && j["dropped"].is_number_unsigned()) counts_.dropped_in_program += j["dropped"].get<uint64_t>();
      }
      return Ok{};
    }
  }
  return Error{fmt::format("unknown frame type {}", static_cast<int>(h.type))};
}

Status ProcessRecording::onRecords(int connection, Connection& c, uint8_t stream, std::string_view payload) {
  std::vector<wire::Record> records;
  if (Status st = decodeRecords(payload, records); !st) return st;
  for (const wire::Record& w : records) {
    if (w.kind >= wire::kRecordKindCount) return Error{fmt::format("record of unknown kind {}", w.kind)};
    CaptureRecord r;
    r.t_ns = std::max(w.t_ns, context_.t0_ns);
    r.device = w.device;
    r.addr = w.addr;
    r.size = w.size;
    r.stream = w.stream;
    const auto kind = static_cast<wire::RecordKind>(w.kind);
    switch (kind) {
      case wire::RecordKind::Allocator:
      case wire::RecordKind::Driver: {
        if (w.action >= kActionCount) return Error{fmt::format("record with unknown action {}", w.action)};
        r.kind = RecordKind::Memory;
        r.action = static_cast<Action>(w.action);
        if (w.stack != wire::kNoStack) {
          auto s = c.stacks.find(w.stack);
          if (s == c.stacks.end()) return Error{fmt::format("record names stack {}, which was never defined", w.stack)};
          r.context = std::const_pointer_cast<StackFrames>(s->second);
        }
        if (kind == wire::RecordKind::Driver) {
          r.source = Source::Driver;
          ++counts_.driver;
          if (ProgramTraceSink* s = sink()) s->pushDriver(std::move(r));
          continue;
        }
        r.source = Source::Allocator;
        ++counts_.allocator;
        break;
      }
      case wire::RecordKind::Sample:
        r.kind = RecordKind::Sample;
        r.source = Source::Sample;
        r.action = Action::Sample;
        ++counts_.samples;
        break;
      case wire::RecordKind::Tag:
        if (w.action >= kCategoryCount) return Error{fmt::format("tag with unknown category {}", w.action)};
        r.kind = RecordKind::Tag;
        r.category = static_cast<Category>(w.action);
        ++counts_.tags;
        break;
      case wire::RecordKind::PhaseBegin:
      case wire::RecordKind::PhaseEnd:
      case wire::RecordKind::AnnotationBegin:
      case wire::RecordKind::AnnotationEnd: {
        const bool begin = kind == wire::RecordKind::PhaseBegin || kind == wire::RecordKind::AnnotationBegin;
        const bool annotation = kind == wire::RecordKind::AnnotationBegin || kind == wire::RecordKind::AnnotationEnd;
        r.kind = begin ? RecordKind::PhaseBegin : RecordKind::PhaseEnd;
        r.stream = annotation ? kAnnotation : 0;
        r.addr = annotation ? w.stream : 0;  // the range id
        if (!(annotation && !begin)) {
          auto n = c.names.find(static_cast<uint32_t>(w.addr));
          if (n == c.names.end()) return Error{fmt::format("marker names {}, which was never defined", w.addr)};
          if (names_.size() >= kMaxNames && !name_ids_.count(n->second)) return Error{"too many phase names"};
          r.id = internName(n->second);
        }
        if (begin) ++(annotation ? counts_.annotations : counts_.phases);
        break;
      }
    }
    merger_.add(key(connection, stream), std::move(r));
  }
  return Ok{};
}

Status ProcessRecording::onKernels(int connection, Connection& c, std::string_view payload) {
  std::vector<wire::Kernel> kernels;
  if (Status st = decodeKernels(payload, kernels); !st) return st;
  ProgramTraceSink* s = sink();
  if (!s) return Ok{};
  std::vector<KernelInterval> out;
  out.reserve(kernels.size());
  for (const wire::Kernel& k : kernels) {
    auto n = c.names.find(k.name);
    const std::string& name = n == c.names.end() ? std::string("?") : n->second;
    auto [it, inserted] = kernel_name_ids_.try_emplace({connection, k.name}, static_cast<uint32_t>(kernel_names_.size()));
    if (inserted) {
      if (kernel_names_.size() >= kMaxNames) return Error{"too many kernel names"};
      kernel_names_.push_back(name);
    }
    KernelInterval ki;
    ki.device = k.device;
    ki.stream = k.stream;
    ki.begin_ns = std::max(k.begin_ns, context_.t0_ns);
    ki.end_ns = std::max(k.end_ns, ki.begin_ns);
    ki.name = it->second;
    out.push_back(ki);
  }
  counts_.kernels += out.size();
  s->addKernels(std::move(out), kernel_names_);
  return Ok{};
}

ProgramTraceSink* ProcessRecording::sink() {
  if (sink_ || sink_failed_ || finished_with_file_) return sink_.get();
  path_ = context_.claim_path(pid_, rank_);
  Run run;
  run.name = joinCommand(context_.command);
  run.workload = "program";
  run.config.emplace_back("command", run.name);
  run.config.emplace_back("cwd", context_.cwd);
  run.config.emplace_back("pid", std::to_string(pid_));
  if (rank_ >= 0) run.config.emplace_back("rank", std::to_string(rank_));
  for (const char* key : {"world_size", "local_rank", "torch", "torch_cuda", "python"})
    if (identity_.contains(key)) run.config.emplace_back(key, jsonText(identity_[key]));
  if (identity_.contains("argv")) run.config.emplace_back("process_argv", identity_["argv"].dump());
  for (const auto& [k, v] : context_.meta)
    if (k.starts_with("env.")) run.config.emplace_back(k, v);
  auto created = ProgramTraceSink::create(path_, context_.t0_ns, run, context_.window);
  if (!created) {
    sink_failed_ = true;
    if (context_.notify) context_.notify("error", fmt::format("{}: cannot record into {}: {}", describe(), path_,
                                                              created.error().message));
    return nullptr;
  }
  sink_ = std::move(*created);
  sink_->setMeta(std::string(meta::kComplete), "false");
  sink_->setMeta("workload", "program");
  sink_->setMeta("command", nlohmann::json(context_.command).dump());
  sink_->setMeta("cwd", context_.cwd);
  sink_->setMeta("pid", std::to_string(pid_));
  if (rank_ >= 0) sink_->setMeta("rank", std::to_string(rank_));
  for (const auto& [k, v] : context_.meta) sink_->setMeta(k, v);
  for (const auto& [k, v] : identity_.items()) sink_->setMeta("program." + k, jsonText(v));
  for (const auto& [k, v] : pending_meta_) sink_->setMeta(k, v);
  if (context_.file_started) context_.file_started(pid_, rank_, path_);
  return sink_.get();
}

void ProcessRecording::release(CaptureRecord&& r) {
  ProgramTraceSink* s = sink();
  if (!s) return;
  bool step_ends = false;
  if (r.kind == RecordKind::PhaseBegin) {
    const bool annotation = r.stream == kAnnotation;
    const uint32_t id = s->definePhase(names_.at(r.id), annotation ? PhaseKind::Annotation : PhaseKind::Phase);
    if (annotation) open_annotations_[r.addr] = id;
    else open_phases_.push_back({r.id, id});
    r.id = id;
  } else if (r.kind == RecordKind::PhaseEnd) {
    if (r.stream == kAnnotation) {
      auto it = open_annotations_.find(r.addr);
      if (it == open_annotations_.end()) return;
      r.id = it->second;
      open_annotations_.erase(it);
    } else {
      auto it = std::find_if(open_phases_.rbegin(), open_phases_.rend(), [&](const OpenPhase& p) { return p.name == r.id; });
      if (it == open_phases_.rend()) return;
      step_ends = names_.at(it->name) == kOptimizerPhase;
      r.id = it->id;
      open_phases_.erase(std::next(it).base());
    }
  }
  const int64_t t = r.t_ns;
  s->push(std::move(r));
  if (step_ends) {
    CaptureRecord step;
    step.kind = RecordKind::StepBegin;
    step.t_ns = t;
    step.addr = static_cast<uint64_t>(++optimizer_steps_);
    s->push(std::move(step));
  }
}

void ProcessRecording::tick(int64_t now) {
  merger_.release(now, [this](CaptureRecord&& r) { release(std::move(r)); });
  if (sink_ && now - last_heartbeat_ >= kHeartbeatNs) {
    last_heartbeat_ = now;
    sink_->setMeta("recording.updated_clock_ns", std::to_string(now));
  }
}

std::string ProcessRecording::summary() const {
  return fmt::format("{}: {} allocator events, {} driver events, {} kernels, {} device samples, {} tags, {} phases, "
                     "{} annotations{}",
                     describe(), counts_.allocator, counts_.driver, counts_.kernels, counts_.samples, counts_.tags,
                     counts_.phases, counts_.annotations,
                     counts_.dropped_in_program ? fmt::format(", {} dropped in the program", counts_.dropped_in_program)
                                                : std::string());
}

Status ProcessRecording::finish(const std::string& exit) {
  merger_.releaseAll([this](CaptureRecord&& r) { release(std::move(r)); });
  if (sink_failed_) return Error{fmt::format("{} could not be written", path_)};
  if (!sink_) return Ok{};
  // What the program left open ends where its recording ends.
  const int64_t last = sink_->lastTime();
  while (!open_phases_.empty()) {
    CaptureRecord r;
    r.kind = RecordKind::PhaseEnd;
    r.t_ns = last;
    r.id = open_phases_.back().id;
    open_phases_.pop_back();
    sink_->push(std::move(r));
  }
  for (const auto& [range, id] : open_annotations_) {
    CaptureRecord r;
    r.kind = RecordKind::PhaseEnd;
    r.t_ns = last;
    r.id = id;
    sink_->push(std::move(r));
  }
  open_annotations_.clear();

  std::string reason;
  for (const auto& [id, c] : connections_)
    if (!c.bye) reason = fmt::format("the {} of {} ended without its final delivery{}", c.role, describe(),
                                     exit.empty() ? " (crashed or killed)" : " (" + exit + ")");
  const uint64_t dropped = sink_->dropped() + counts_.dropped_in_program;
  sink_->setMeta(std::string(meta::kDroppedRecords), std::to_string(dropped));
  sink_->setMeta("capture.late_records", std::to_string(merger_.late()));
  sink_->setMeta("capture.sources", summary());
  if (!exit.empty()) sink_->setMeta("program.exit", exit);
  for (const auto& [k, v] : identity_.items()) sink_->setMeta("program." + k, jsonText(v));  // later hellos too
  for (const auto& [id, c] : connections_)
    if (c.bye) {
      if (!c.bye_reason.empty()) sink_->setMeta("program.end." + c.role, c.bye_reason);
      if (!c.bye_details.empty()) sink_->setMeta("capture." + c.role, c.bye_details);
    }
  if (reason.empty()) sink_->setMeta(std::string(meta::kComplete), "true");
  else sink_->setMeta(std::string(meta::kIncompleteReason), reason);
  Status st = sink_->finish();
  sink_.reset();
  finished_with_file_ = true;
  return st;
}

}  // namespace sawtooth::record
