#pragma once
// The recorder's side of the program stream (inject/wire.h): cuts a connection's bytes into
// frames and decodes their payloads. The bytes come from a program we do not control: every
// length is checked against what is left and against the protocol's limits, and a malformed
// stream is an error that closes that connection, never a crash.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/recording/wire.h"
#include "core/util/result.h"

namespace sawtooth::record {

class FrameReader {
 public:
  using OnFrame = std::function<Status(const wire::Header&, std::string_view payload)>;
  // Consumes `bytes`, calling on_frame for each complete frame; a frame may span calls.
  Status feed(std::string_view bytes, const OnFrame& on_frame);
  size_t pendingBytes() const { return pending_.size(); }

 private:
  std::string pending_;
};

struct FrameDef {
  uint32_t id = 0;
  int32_t line = 0;
  std::string name, file;
};
struct StackDef {
  uint32_t id = 0;
  std::vector<uint32_t> frames;  // innermost first
};
struct NameDef {
  uint32_t id = 0;
  std::string text;
};
struct ModuleDef {
  uint32_t id = 0;
  uint32_t parent = wire::kNoModule;
  int64_t parameter_bytes = 0;
  std::string name, class_name;
};

Status decodeRecords(std::string_view payload, std::vector<wire::Record>& out);
Status decodeKernels(std::string_view payload, std::vector<wire::Kernel>& out);
Status decodeFrames(std::string_view payload, std::vector<FrameDef>& out);
Status decodeStacks(std::string_view payload, std::vector<StackDef>& out);
Status decodeNames(std::string_view payload, std::vector<NameDef>& out);
Status decodeModules(std::string_view payload, std::vector<ModuleDef>& out);
Result<int64_t> decodeTime(std::string_view payload);

}  // namespace sawtooth::record
