#include "capture/ingest/shim_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "capture/ingest/ingest_limits.h"
#include "capture/ingest/wire_reader.h"

namespace sawtooth::record {
namespace {

constexpr int kPollMs = 20;
constexpr size_t kReadChunk = 1 << 20;
constexpr size_t kMaxConnections = 4096;

std::string socketFolder() {
  // A short path: a Unix socket's path must fit in 108 bytes.
  for (const char* base : {static_cast<const char*>(std::getenv("TMPDIR")), "/tmp"}) {
    if (!base || !*base || std::strlen(base) > 60) continue;
    std::string pattern = std::string(base) + "/sawtooth-XXXXXX";
    if (mkdtemp(pattern.data())) return pattern;
  }
  return {};
}

}  // namespace

struct ShimServer::Connection {
  int id = 0;
  int fd = -1;
  int pid = 0;
  bool hello = false;
  FrameReader reader;
};

ShimServer::ShimServer(const RecordingContext& context, int listen_fd, std::string dir, std::string socket_path)
    : context_(context), listen_fd_(listen_fd), dir_(std::move(dir)), socket_path_(std::move(socket_path)) {}

Result<std::unique_ptr<ShimServer>> ShimServer::start(const RecordingContext& context) {
  const std::string dir = socketFolder();
  if (dir.empty()) return Error{fmt::format("cannot create a private folder for the recording socket: {}", std::strerror(errno))};
  const std::string path = dir + "/channel";
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Error{fmt::format("cannot create the recording socket: {}", std::strerror(errno))};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 128) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    unlink(path.c_str());
    rmdir(dir.c_str());
    return Error{fmt::format("cannot listen on {}: {}", path, why)};
  }
  auto server = std::unique_ptr<ShimServer>(new ShimServer(context, fd, dir, path));
  server->thread_ = std::thread([s = server.get()] { s->run(); });
  return server;
}

ShimServer::~ShimServer() {
  if (thread_.joinable()) (void)stop({});
  if (listen_fd_ >= 0) close(listen_fd_);
  if (!socket_path_.empty()) unlink(socket_path_.c_str());
  if (!dir_.empty()) rmdir(dir_.c_str());
}

void ShimServer::acceptAll() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    ucred cred{};
    socklen_t len = sizeof cred;
    if (connections_.size() >= kMaxConnections || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        cred.uid != getuid()) {
      close(fd);
      continue;
    }
    auto c = std::make_unique<Connection>();
    c->id = next_connection_++;
    c->fd = fd;
    c->pid = cred.pid;
    connections_.emplace(c->id, std::move(c));
    ++open_;
    ++made_;
  }
}

void ShimServer::closeConnection(Connection& c, const std::string& why) {
  if (c.fd < 0) return;
  close(c.fd);
  c.fd = -1;
  --open_;
  unfinished_bytes_ -= c.reader.pendingBytes();
  c.reader = FrameReader();
  if (!why.empty() && context_.notify)
    context_.notify("warning", fmt::format("pid {}: its connection was closed: {}", c.pid, why));
  if (auto p = processes_.find(c.pid); p != processes_.end()) p->second->onConnectionClosed(c.id);
}

bool ShimServer::feed(Connection& c, std::string_view bytes) {
  const size_t before = c.reader.pendingBytes();
  Status st = Ok{};
  try {
    st = c.reader.feed(bytes, [&](const wire::Header& h, std::string_view payload) -> Status {
      if (!c.hello) {
        if (h.type != wire::FrameType::Hello) return Error{"the first frame is not a hello"};
        auto json = wire::helloJson(payload);
        if (!json) return json.error();
        auto j = nlohmann::json::parse(*json, nullptr, false);
        auto& p = processes_[c.pid];
        if (!p) {
          if (processes_.size() > limits::kProcesses) {
            processes_.erase(c.pid);
            ++refused_processes_;
            return Error{fmt::format("the recorder keeps at most {} processes", limits::kProcesses)};
          }
          p = std::make_unique<ProcessRecording>(c.pid, context_);
          if (context_.process_connected) context_.process_connected(c.pid);
        }
        if (Status s = p->onHello(c.id, j); !s) return s;
        c.hello = true;
        return Ok{};
      }
      return processes_.at(c.pid)->onFrame(c.id, h, payload);
    });
  } catch (const std::bad_alloc&) {
    st = Error{"the recorder ran out of memory reading it"};
  } catch (const std::exception& e) {
    st = Error{fmt::format("reading it failed ({})", e.what())};
  }
  unfinished_bytes_ = unfinished_bytes_ - before + c.reader.pendingBytes();
  if (!st) {
    closeConnection(c, "bad data: " + st.error().message);
    return false;
  }
  return true;
}

bool ShimServer::readFrom(Connection& c) {
  static thread_local std::string buffer(kReadChunk, '\0');
  for (int rounds = 0; rounds < 8; ++rounds) {
    const ssize_t n = read(c.fd, buffer.data(), buffer.size());
    if (n == 0) return false;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      return false;
    }
    if (!feed(c, std::string_view(buffer.data(), static_cast<size_t>(n)))) return false;
    if (unfinished_bytes_ > limits::kUnfinishedFrameBytes) {
      boundUnfinished();
      if (c.fd < 0) return false;
    }
  }
  return true;
}

void ShimServer::boundUnfinished() {
  while (unfinished_bytes_ > limits::kUnfinishedFrameBytes) {
    Connection* largest = nullptr;
    for (auto& [id, c] : connections_)
      if (c->fd >= 0 && (!largest || c->reader.pendingBytes() > largest->reader.pendingBytes())) largest = c.get();
    if (!largest || largest->reader.pendingBytes() == 0) return;
    closeConnection(*largest, fmt::format("its unfinished frames ({} bytes) took the recorder's budget for frames in "
                                          "transit ({} bytes over all connections)",
                                          largest->reader.pendingBytes(), limits::kUnfinishedFrameBytes));
  }
}

void ShimServer::run() {
  std::vector<pollfd> fds;
  std::vector<Connection*> owners;
  while (!stopping_.load()) {
    fds.clear();
    owners.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    owners.push_back(nullptr);
    for (auto& [id, c] : connections_)
      if (c->fd >= 0) fds.push_back({c->fd, POLLIN, 0}), owners.push_back(c.get());
    poll(fds.data(), fds.size(), kPollMs);
    if (fds[0].revents & POLLIN) acceptAll();
    for (size_t i = 1; i < fds.size(); ++i)
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
        if (!readFrom(*owners[i])) closeConnection(*owners[i], "");
    for (auto it = connections_.begin(); it != connections_.end();)
      it = it->second->fd < 0 ? connections_.erase(it) : std::next(it);
    const int64_t now = capture::clockNs();
    for (auto& [pid, p] : processes_) {
      try {
        p->tick(now);
      } catch (const std::exception& e) {  // bad_alloc: the budgets make it unlikely; never an abort
        if (context_.notify) context_.notify("warning", fmt::format("pid {}: writing its records failed ({})", pid, e.what()));
      }
    }
  }
}

namespace {

// Why a child the program started recorded nothing, for the user (stderr, the file's processes_left_out).
std::string leftOutLine(int pid, const ProcessRecording::Child& child, bool connected) {
  using How = ProcessRecording::Child::How;
  if (child.how == How::kShell)
    return fmt::format("os.system ({}): a shell, not recorded, nor any program it ran but a Python program "
                       "allocating through torch (those record into files of their own)",
                       child.command);
  if (connected) return fmt::format("pid {} ({}): connected, but allocated nothing through torch", pid, child.command);
  if (child.how == How::kForked)
    return fmt::format("pid {} (a fork of {}): forked processes are not recorded (multiprocessing's fork start "
                       "method, DataLoader workers, os.fork), those of the spawn start method are",
                       pid, child.command);
  return fmt::format("pid {} ({}): never connected: not a Python program, or Python started with -I, -E or -S", pid,
                     child.command);
}

}  // namespace

std::vector<RecordedProcess> ShimServer::stop(const std::map<int, ProcessEnd>& exits) {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
  // What is already in the sockets still counts.
  for (auto& [id, c] : connections_) {
    if (c->fd < 0) continue;
    while (readFrom(*c)) {
      pollfd p{c->fd, POLLIN, 0};
      if (poll(&p, 1, 0) <= 0) break;
    }
    closeConnection(*c, "");
  }
  connections_.clear();
  // Children before their parents: a parent's file names the children the recording left out,
  // and whether a child that connected recorded anything is known once it has finished.
  std::map<int, std::map<int, ProcessRecording::Child>> started;  // pid -> the processes it said it started
  for (auto& [pid, p] : processes_) started[pid] = p->childProcesses();
  std::vector<int> order;
  std::set<int> placed;
  for (auto& [root, unused] : processes_) {
    std::vector<std::pair<int, bool>> todo{{root, false}};  // (pid, its children placed)
    while (!todo.empty()) {
      auto [pid, children_placed] = todo.back();
      todo.pop_back();
      if (children_placed) {
        order.push_back(pid);
        continue;
      }
      if (!placed.insert(pid).second) continue;
      todo.emplace_back(pid, true);
      for (const auto& [child, command] : started[pid])
        if (processes_.count(child) && !placed.count(child)) todo.emplace_back(child, false);
    }
  }
  // The program's own process, when it never connected (a shell, a script's interpreter): what it
  // started is recorded only where a Python program allocated through torch; its other processes are unknown.
  std::vector<std::pair<int, std::string>> silent_programs;
  for (const auto& [pid, end] : exits)
    if (!processes_.count(pid))
      silent_programs.emplace_back(
          pid, fmt::format("pid {} (the program's own process): never connected (not a Python program, or Python "
                           "started with -I, -E or -S), nor did any process it started but these Python programs: "
                           "others it ran are not recorded",
                           pid));
  std::map<int, bool> recorded_something;
  std::vector<RecordedProcess> out;
  for (int pid : order) {
    ProcessRecording* p = processes_[pid].get();
    RecordedProcess r;
    for (const auto& [child, started_child] : started[pid]) {
      auto seen = recorded_something.find(child);
      if (seen != recorded_something.end() && seen->second) continue;
      r.left_out.emplace_back(child, leftOutLine(child, started_child, seen != recorded_something.end()));
    }
    if (const uint64_t unnamed = p->unnamedChildren(); unnamed > 0)
      r.left_out.emplace_back(0, fmt::format("{} more processes started by pid {}, not named (past "
                                                             "the shim's limit): those that were not Python "
                                                             "programs allocating through torch",
                                                             unnamed, pid));
    r.left_out.insert(r.left_out.end(), silent_programs.begin(), silent_programs.end());
    std::vector<std::string> lines;
    for (const auto& [child, line] : r.left_out) lines.push_back(line);
    p->noteLeftOut(lines);
    r.pid = pid;
    r.rank = p->rank();
    auto e = exits.find(pid);
    const ProcessEnd end = e == exits.end() ? ProcessEnd{} : e->second;
    Status st = Ok{};
    try {
      st = p->finish(end.description, end.signal);
    } catch (const std::exception& ex) {
      st = Error{fmt::format("closing its file failed ({})", ex.what())};
    }
    if (!st) r.error = st.error().message;
    r.path = p->hasFile() ? p->path() : std::string();
    r.clean = p->clean();
    r.records = p->records();
    r.summary = p->summary();
    r.command = p->commandLine();
    r.disk_full = p->writeFailed();
    r.write_failure = p->writeFailure();
    recorded_something[pid] = !r.path.empty() || !r.error.empty();  // a failed file is told of on its own
    out.push_back(std::move(r));
  }
  processes_.clear();
  std::sort(out.begin(), out.end(), [](const RecordedProcess& a, const RecordedProcess& b) { return a.pid < b.pid; });
  return out;
}

}  // namespace sawtooth::record
