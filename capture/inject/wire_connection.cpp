#include "capture/inject/wire_connection.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace sawtooth::wire {
namespace {

// Sends every byte; when the recorder is gone, closes fd and sets it to -1 (no more sending).
bool sendAll(int& fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fd = -1;
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Connection::~Connection() { close(); }

bool Connection::open(const char* socket_path, const std::string& hello_json) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0 || !socket_path) return fd_ >= 0;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_path) >= static_cast<int>(sizeof addr.sun_path))
    return false;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return false;
  }
  fd_ = fd;
  std::string frame;
  appendFrame(frame, FrameType::Hello, 0, helloPayload(hello_json));
  return sendAll(fd_, frame);
}

bool Connection::send(const std::string& frames) {
  std::lock_guard<std::mutex> lock(mutex_);
  return fd_ >= 0 && sendAll(fd_, frames);
}

bool Connection::isOpen() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fd_ >= 0;
}

void Connection::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Connection::forget() {
  // No lock: in a forked child the mutex may be held by a thread that does not exist here.
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

uint32_t NameTable::id(std::string_view text) {
  auto it = ids_.find(std::string(text));
  if (it != ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(ids_.size());
  ids_.emplace(std::string(text), id);
  unsent_.emplace_back(id, std::string(text.substr(0, 0xffff)));
  return id;
}

void NameTable::appendNew(std::string& out, uint8_t stream) {
  if (unsent_.empty()) return;
  std::string payload;
  for (const auto& [id, text] : unsent_) {
    appendPod(payload, id);
    appendPod(payload, static_cast<uint16_t>(text.size()));
    payload += text;
    if (payload.size() > kMaxPayload / 2) {
      appendFrame(out, FrameType::Names, stream, payload);
      payload.clear();
    }
  }
  if (!payload.empty()) appendFrame(out, FrameType::Names, stream, payload);
  unsent_.clear();
}

uint32_t StackTable::frame(std::string_view name, std::string_view file, int32_t line) {
  name = name.substr(0, 0xffff);
  file = file.substr(0, 0xffff);
  std::string key;
  key.reserve(name.size() + file.size() + 12);
  appendPod(key, static_cast<uint32_t>(name.size()));
  key.append(name).append(file);
  appendPod(key, line);
  auto [it, inserted] = frame_ids_.try_emplace(std::move(key), static_cast<uint32_t>(frame_ids_.size()));
  if (inserted) {
    appendPod(unsent_frames_, it->second);
    appendPod(unsent_frames_, line);
    appendPod(unsent_frames_, static_cast<uint16_t>(name.size()));
    appendPod(unsent_frames_, static_cast<uint16_t>(file.size()));
    unsent_frames_.append(name).append(file);
    frame_ends_.push_back(unsent_frames_.size());
  }
  return it->second;
}

uint32_t StackTable::stack(const std::vector<uint32_t>& frames) {
  const size_t depth = std::min<size_t>(frames.size(), kMaxStackDepth);
  std::string key(reinterpret_cast<const char*>(frames.data()), depth * sizeof(uint32_t));
  auto [it, inserted] = stack_ids_.try_emplace(std::move(key), static_cast<uint32_t>(stack_ids_.size()));
  if (inserted) {
    appendPod(unsent_stacks_, it->second);
    appendPod(unsent_stacks_, static_cast<uint16_t>(depth));
    unsent_stacks_.append(it->first);
    stack_ends_.push_back(unsent_stacks_.size());
  }
  return it->second;
}

void StackTable::appendNew(std::string& out, uint8_t stream) {
  // Frames before the stacks that name them; each chunk ends on an entry boundary.
  const auto chunked = [&](std::string& unsent, std::vector<size_t>& ends, FrameType type) {
    size_t from = 0, last = 0;
    for (size_t end : ends) {
      if (end - from > kMaxPayload / 2 && last > from) {
        appendFrame(out, type, stream, std::string_view(unsent).substr(from, last - from));
        from = last;
      }
      last = end;
    }
    if (last > from) appendFrame(out, type, stream, std::string_view(unsent).substr(from, last - from));
    unsent.clear();
    ends.clear();
  };
  chunked(unsent_frames_, frame_ends_, FrameType::Frames);
  chunked(unsent_stacks_, stack_ends_, FrameType::Stacks);
}

std::string jsonQuote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace sawtooth::wire
