#include "capture/ingest/process_recording.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "capture/ingest/ingest_limits.h"
#include "capture/ingest/wire_reader.h"
#include "core/io/native_schema.h"
#include "core/model/meta_keys.h"
#include "core/model/recording_status.h"

namespace sawtooth::record {
namespace {

using capture::CaptureRecord;
using capture::RecordKind;

// Sender ids a process' connections may map (frames, stacks, names together): a program that
// defines the same frame under ever new ids costs the recorder its map, not text.
constexpr size_t kMaxDefinitions = 4'000'000;
constexpr size_t kMaxIdentityKeys = 64;
// Streams a process' connections may open (each costs the merger a queue and a look per record).
constexpr size_t kMaxStreams = 1024;
constexpr size_t kMaxIdentityBytes = 4096;
constexpr size_t kMaxModules = 1'000'000;
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
  c.tracks_modules = hello.value("modules", false);
  connections_.emplace(connection, std::move(c));
  for (const auto& [k, v] : hello.items())
    if (k != "role" && k != "pid" && identity_.size() < kMaxIdentityKeys && k.size() < 256 &&
        v.dump().size() <= kMaxIdentityBytes)
      identity_[k] = v;
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

uint64_t ProcessRecording::records() const {
  return counts_.allocator + counts_.driver + counts_.samples + counts_.tags + counts_.phases + counts_.annotations +
         counts_.kernels;
}

std::string ProcessRecording::commandLine() const {
  if (!identity_.contains("argv") || !identity_["argv"].is_array()) return {};
  std::vector<std::string> argv;
  for (const auto& a : identity_["argv"])
    if (a.is_string()) argv.push_back(a.get<std::string>());
  std::string line = joinCommand(argv);
  return line.size() > 200 ? line.substr(0, 197) + "..." : line;
}

void ProcessRecording::onMeta(const nlohmann::json& meta) {
  for (const auto& [k, v] : meta.items()) {
    std::string value = jsonText(v);
    if (value.size() > limits::kMetaValueBytes || k.size() > 256 ||
        (!pending_meta_.count(k) && pending_meta_.size() >= limits::kMetaKeys)) {
      ++counts_.dropped_meta;
      continue;
    }
    if (sink_) sink_->setMeta(k, value);
    pending_meta_[k] = std::move(value);
  }
}

std::map<int, ProcessRecording::Child> ProcessRecording::childProcesses() const {
  std::map<int, Child> out;
  constexpr std::pair<std::string_view, Child::How> kPrefixes[] = {
      {"child_process.", Child::How::kStarted}, {"child_fork.", Child::How::kForked}, {"child_shell.", Child::How::kShell}};
  for (const auto& [prefix, how] : kPrefixes) {
    for (auto it = pending_meta_.lower_bound(std::string(prefix));
         it != pending_meta_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
      const std::string_view digits = std::string_view(it->first).substr(prefix.size());
      int number = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
      if (ec != std::errc() || end != digits.data() + digits.size() || number <= 0) continue;
      out[how == Child::How::kShell ? -number : number] = Child{how, it->second};
    }
  }
  return out;
}

uint64_t ProcessRecording::unnamedChildren() const {
  auto it = pending_meta_.find("child_processes_unnamed");
  if (it == pending_meta_.end()) return 0;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
  return ec == std::errc() ? n : 0;
}

void ProcessRecording::noteLeftOut(const std::vector<std::string>& left_out) {
  if (left_out.empty()) return;
  std::string text;
  for (const std::string& line : left_out) text += (text.empty() ? "" : "; ") + line;
  if (text.size() > limits::kMetaValueBytes) text = text.substr(0, limits::kMetaValueBytes - 3) + "...";
  pending_meta_["processes_left_out"] = text;
  if (sink_) sink_->setMeta("processes_left_out", text);
}

void ProcessRecording::onNotice(const std::string& level, std::string message) {
  if (message.empty()) return;
  ++counts_.notices;
  if (message.size() > limits::kNoticeBytes) message = message.substr(0, limits::kNoticeBytes) + "...";
  if (counts_.notices <= limits::kEchoedNotices && context_.notify)
    context_.notify(level, fmt::format("{}: {}", describe(), message));
  else if (counts_.notices == limits::kEchoedNotices + 1 && context_.notify)
    context_.notify("warning", fmt::format("{}: more notices; they are in the file (meta notices) only", describe()));
  if (notices_.size() >= limits::kNotices) {
    ++counts_.dropped_notices;
    return;
  }
  notices_.push_back(std::move(message));
  std::string joined;
  for (const std::string& n : notices_) joined += (joined.empty() ? "" : "\n") + n;
  pending_meta_["notices"] = joined;
  if (sink_) sink_->setMeta("notices", joined);
}

Status ProcessRecording::onDefinitions(Connection& c, const wire::Header& h, std::string_view payload) {
  switch (h.type) {
    case wire::FrameType::Frames: {
      std::vector<FrameDef> defs;
      if (Status st = decodeFrames(payload, defs); !st) return st;
      for (auto& f : defs) {
        if (!c.frames.count(f.id) && definitions_ >= kMaxDefinitions) {
          ++counts_.dropped_definitions;
          continue;
        }
        definitions_ += c.frames.count(f.id) ? 0 : 1;
        c.frames[f.id] = tables_.frame(f.name, f.file, f.line);
      }
      return Ok{};
    }
    case wire::FrameType::Stacks: {
      std::vector<StackDef> defs;
      if (Status st = decodeStacks(payload, defs); !st) return st;
      for (const auto& s : defs) {
        StackFrames frames;
        frames.reserve(s.frames.size());
        for (uint32_t f : s.frames) {
          auto fr = c.frames.find(f);
          if (fr == c.frames.end()) return Error{fmt::format("stack {} names frame {}, which was never defined", s.id, f)};
          frames.push_back(fr->second);
        }
        if (!c.stacks.count(s.id) && definitions_ >= kMaxDefinitions) {
          ++counts_.dropped_definitions;
          c.stacks[s.id] = nullptr;  // its records carry no stack
          continue;
        }
        definitions_ += c.stacks.count(s.id) ? 0 : 1;
        c.stacks[s.id] = tables_.stack(std::move(frames));
      }
      return Ok{};
    }
    default: {
      std::vector<NameDef> defs;
      if (Status st = decodeNames(payload, defs); !st) return st;
      for (auto& n : defs) {
        if (!c.names.count(n.id) && definitions_ >= kMaxDefinitions) {
          ++counts_.dropped_definitions;
          c.names[n.id] = 0;
          continue;
        }
        definitions_ += c.names.count(n.id) ? 0 : 1;
        c.names[n.id] = tables_.name(n.text);
      }
      return Ok{};
    }
  }
}

Status ProcessRecording::onFrame(int connection, const wire::Header& h, std::string_view payload) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return Error{"a frame before the hello"};
  Connection& c = it->second;
  const bool streamed = h.type == wire::FrameType::Records || h.type == wire::FrameType::Watermark ||
                        h.type == wire::FrameType::Idle;
  if (streamed && !merger_.has(key(connection, h.stream)) && merger_.streams() >= kMaxStreams)
    return Error{fmt::format("more than {} streams in one process", kMaxStreams)};
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
    case wire::FrameType::Frames:
    case wire::FrameType::Stacks:
    case wire::FrameType::Names:
      return onDefinitions(c, h, payload);
    case wire::FrameType::Kernels:
      return onKernels(connection, c, payload);
    case wire::FrameType::Modules:
      return onModules(payload);
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
      const auto message = j.contains("message") && j["message"].is_string() ? j["message"].get<std::string>() : "";
      const auto level = j.contains("level") && j["level"].is_string() ? j["level"].get<std::string>() : "info";
      onNotice(level == "warning" || level == "error" ? level : "info", message);
      return Ok{};
    }
    case wire::FrameType::Bye: {
      auto j = nlohmann::json::parse(payload, nullptr, false);
      c.bye = true;
      if (j.is_object()) {
        c.bye_reason = j.contains("reason") && j["reason"].is_string() ? j["reason"].get<std::string>().substr(0, 1024) : "";
        c.bye_details = j.dump().substr(0, limits::kMetaValueBytes);
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
    if (w.pass >= kPassCount) return Error{fmt::format("record with unknown pass {}", w.pass)};
    r.module = moduleOf(w.module);
    r.pass = static_cast<Pass>(w.pass);
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
          if (s->second) r.context = std::const_pointer_cast<StackFrames>(s->second);
        }
        if (kind == wire::RecordKind::Driver) {
          r.source = Source::Driver;
          ++counts_.driver;
          if (ProgramTraceSink* s = sink()) {
            s->pushDriver(std::move(r));
            if (s->failed()) write_failed_ = true;
          }
          continue;
        }
        r.source = Source::Allocator;
        r.module_known = c.tracks_modules;
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
          auto n = w.addr <= UINT32_MAX ? c.names.find(static_cast<uint32_t>(w.addr)) : c.names.end();
          if (n == c.names.end()) return Error{fmt::format("marker names {}, which was never defined", w.addr)};
          r.id = n->second;
        }
        if (begin) ++(annotation ? counts_.annotations : counts_.phases);
        break;
      }
      case wire::RecordKind::ModuleEnter:
      case wire::RecordKind::ModuleExit:
        r.kind = kind == wire::RecordKind::ModuleEnter ? RecordKind::ModuleEnter : RecordKind::ModuleExit;
        if (kind == wire::RecordKind::ModuleEnter) ++counts_.module_calls;
        break;
    }
    merger_.add(key(connection, stream), std::move(r));
  }
  mergeBounded();
  return Ok{};
}

void ProcessRecording::mergeBounded() {
  if (merger_.pending() <= limits::kMergerRecords) return;
  // A stream whose watermark does not move holds every other stream's records: beyond the budget
  // the oldest go on (records arriving later than them are counted late, placed by their time).
  counts_.forced_releases +=
      merger_.releaseOldest(limits::kMergerRecords * 3 / 4, [this](CaptureRecord&& r) { release(std::move(r)); });
}

Status ProcessRecording::onModules(std::string_view payload) {
  std::vector<ModuleDef> defs;
  if (Status st = decodeModules(payload, defs); !st) return st;
  for (ModuleDef& d : defs) {
    if (module_ids_.count(d.id)) return Error{fmt::format("module {} is named twice", d.id)};
    uint32_t parent = kNoModule;
    if (d.parent != wire::kNoModule) {
      auto p = module_ids_.find(d.parent);
      if (p == module_ids_.end()) return Error{fmt::format("module {} names parent {}, which was never named", d.id, d.parent)};
      parent = p->second;
    }
    auto [it, added] = module_keys_.try_emplace({d.name, d.class_name, parent}, static_cast<uint32_t>(modules_.size()));
    if (added) {
      if (modules_.size() >= kMaxModules) return Error{"too many modules"};
      modules_.push_back(Module{std::move(d.name), std::move(d.class_name), parent, d.parameter_bytes});
    } else {
      modules_[it->second].parameter_bytes = std::max(modules_[it->second].parameter_bytes, d.parameter_bytes);
    }
    module_ids_[d.id] = it->second;
  }
  counts_.modules = modules_.size();
  if (ProgramTraceSink* s = sink_.get())
    for (; modules_defined_ < modules_.size(); ++modules_defined_)
      s->defineModule(static_cast<uint32_t>(modules_defined_), modules_[modules_defined_]);
  return Ok{};
}

uint32_t ProcessRecording::moduleOf(uint32_t id) {
  if (id == wire::kNoModule) return kNoModule;
  auto it = module_ids_.find(id);
  if (it != module_ids_.end()) return it->second;
  ++unknown_modules_;
  return kNoModule;
}

Status ProcessRecording::onKernels(int, Connection& c, std::string_view payload) {
  std::vector<wire::Kernel> kernels;
  if (Status st = decodeKernels(payload, kernels); !st) return st;
  ProgramTraceSink* s = sink();
  if (!s) return Ok{};
  std::vector<KernelInterval> out;
  out.reserve(kernels.size());
  for (const wire::Kernel& k : kernels) {
    auto n = c.names.find(k.name);
    const uint32_t process_name = n == c.names.end() ? 0 : n->second;  // 0: "?"
    auto [it, inserted] = kernel_name_ids_.try_emplace(process_name, static_cast<uint32_t>(kernel_names_.size()));
    if (inserted) kernel_names_.push_back(tables_.nameText(process_name));
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
  auto claim = context_.claim_path(pid_, rank_);
  if (!claim) {
    sink_failed_ = true;
    if (context_.notify)
      context_.notify("error", fmt::format("{}: cannot record: {}", describe(), claim.error().message));
    return nullptr;
  }
  path_ = claim->path();
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
  auto created = ProgramTraceSink::create(std::move(*claim), context_.t0_ns, run, context_.window);
  if (!created) {
    sink_failed_ = true;
    sink_error_ = created.error().message;
    if (context_.notify) context_.notify("error", fmt::format("{}: cannot record into {}: {}", describe(), path_,
                                                              created.error().message));
    return nullptr;
  }
  sink_ = std::move(*created);
  sink_->setMeta("workload", "program");
  sink_->setMeta("command", nlohmann::json(context_.command).dump());
  sink_->setMeta("cwd", context_.cwd);
  sink_->setMeta("pid", std::to_string(pid_));
  if (rank_ >= 0) sink_->setMeta("rank", std::to_string(rank_));
  for (const auto& [k, v] : context_.meta) sink_->setMeta(k, v);
  for (const auto& [k, v] : identity_.items()) sink_->setMeta("program." + k, jsonText(v));
  for (const auto& [k, v] : pending_meta_) sink_->setMeta(k, v);
  for (; modules_defined_ < modules_.size(); ++modules_defined_)
    sink_->defineModule(static_cast<uint32_t>(modules_defined_), modules_[modules_defined_]);
  if (context_.file_started) context_.file_started(pid_, rank_, path_);
  return sink_.get();
}

void ProcessRecording::release(CaptureRecord&& r) {
  ProgramTraceSink* s = sink();
  if (!s) return;
  if (s->failed()) {  // a full disk: the file keeps what it committed and says why it stopped
    write_failed_ = true;
    ++counts_.dropped_write_failed;
    return;
  }
  bool step_ends = false;
  if (r.kind == RecordKind::PhaseBegin) {
    const bool annotation = r.stream == kAnnotation;
    const uint32_t id = s->definePhase(tables_.nameText(r.id), annotation ? PhaseKind::Annotation : PhaseKind::Phase);
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
      step_ends = tables_.nameText(it->name) == kOptimizerPhase;
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
                     "{} annotations, {} modules, {} module calls{}",
                     describe(), counts_.allocator, counts_.driver, counts_.kernels, counts_.samples, counts_.tags,
                     counts_.phases, counts_.annotations, counts_.modules, counts_.module_calls,
                     counts_.dropped_in_program ? fmt::format(", {} dropped in the program", counts_.dropped_in_program)
                                                : std::string());
}

Status ProcessRecording::finish(const std::string& exit, int exit_signal) {
  merger_.releaseAll([this](CaptureRecord&& r) { release(std::move(r)); });
  if (sink_failed_)
    return Error{sink_error_.empty() ? fmt::format("{} could not be written", path_.empty() ? describe() : path_)
                                     : fmt::format("its file could not be created: {}", sink_error_)};
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

  // How it ended, as a keyword (core/model/recording_status.h) and a sentence.
  std::string reason, detail;
  for (const auto& [id, c] : connections_) {
    if (c.bye) continue;
    if (exit_signal > 0) reason = incompleteReasonForSignal(exit_signal);
    else if (!exit.empty()) reason = kNoFinalDelivery;
    else reason = "killed";  // a process the recorder did not start: it ended without a word
    detail = fmt::format("the {} of {} ended without its final delivery ({})", c.role, describe(),
                         exit.empty() ? "crashed or killed" : exit);
  }
  const uint64_t dropped = sink_->dropped() + counts_.dropped_in_program + counts_.dropped_write_failed;
  sink_->setMeta(std::string(meta::kDroppedRecords), std::to_string(dropped));
  sink_->setMeta("capture.late_records", std::to_string(merger_.late()));
  if (unknown_modules_) sink_->setMeta("capture.unknown_modules", std::to_string(unknown_modules_));
  sink_->setMeta("capture.sources", summary());
  const InternedTables::Dropped& d = tables_.dropped();
  const nlohmann::json ingest = {{"frames_dropped", d.frames},
                                 {"stacks_dropped", d.stacks},
                                 {"names_dropped", d.names},
                                 {"definitions_dropped", counts_.dropped_definitions},
                                 {"forced_releases", counts_.forced_releases},
                                 {"notices", counts_.notices},
                                 {"notices_dropped", counts_.dropped_notices},
                                 {"meta_dropped", counts_.dropped_meta},
                                 {"text_bytes", tables_.textBytes()},
                                 {"stack_text_bytes", tables_.stackTextBytes()}};
  sink_->setMeta("capture.ingest", ingest.dump());
  if (!exit.empty()) sink_->setMeta("program.exit", exit);
  for (const auto& [k, v] : identity_.items()) sink_->setMeta("program." + k, jsonText(v));  // later hellos too
  for (const auto& [id, c] : connections_)
    if (c.bye) {
      if (!c.bye_reason.empty()) sink_->setMeta("program.end." + c.role, c.bye_reason);
      if (!c.bye_details.empty()) sink_->setMeta("capture." + c.role, c.bye_details);
    }
  Status st = sink_->finish(reason, detail);
  write_failed_ = write_failed_ || sink_->failed();
  write_failure_ = sink_->failureReason();
  sink_.reset();
  finished_with_file_ = true;
  return st;
}

}  // namespace sawtooth::record
