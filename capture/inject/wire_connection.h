#pragma once
// The sending end of the program stream (wire.h), for the libraries that run inside the recorded
// program (the CUPTI injection library, the allocator tracker). Sends never raise SIGPIPE and
// never throw: when the recorder is gone, the connection closes and the program carries on.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/recording/wire.h"

namespace sawtooth::wire {

class Connection {
 public:
  Connection() = default;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects to the recorder's socket and sends the hello (wire.h: magic, version, this JSON object).
  bool open(const char* socket_path, const std::string& hello_json);
  // Sends whole frames; false (and closed) when the recorder is gone.
  bool send(const std::string& frames);
  bool isOpen() const;
  void close();
  // In a forked child: drops the descriptor without a word (the parent's stream is not ours).
  void forget();

 private:
  mutable std::mutex mutex_;
  int fd_ = -1;
};

// Ids for strings a connection sends once (names, frames): each new one is queued for sending.
class NameTable {
 public:
  uint32_t id(std::string_view text);
  // Appends a Names frame with the names made since the last call (nothing if none).
  void appendNew(std::string& out, uint8_t stream);
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::pair<uint32_t, std::string>> unsent_;
};

// Python frames and stacks, interned the same way (wire.h: Frames and Stacks frames).
class StackTable {
 public:
  uint32_t frame(std::string_view name, std::string_view file, int32_t line);
  uint32_t stack(const std::vector<uint32_t>& frames);
  // Appends Frames and Stacks frames with what is new since the last call.
  void appendNew(std::string& out, uint8_t stream);
  size_t frames() const { return frame_ids_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> frame_ids_, stack_ids_;
  std::string unsent_frames_, unsent_stacks_;
  std::vector<size_t> frame_ends_, stack_ends_;  // where each unsent entry ends
};

std::string jsonQuote(std::string_view text);
// CLOCK_MONOTONIC in nanoseconds: the clock every record is stamped with.
int64_t monotonicNs();

}  // namespace sawtooth::wire
