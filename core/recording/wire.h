#pragma once
// The wire contract: the stream a recorded program sends to sawtooth-record over its Unix socket.
// The Python shim, the allocator tracker and the CUPTI injection library each open a connection
// and send frames. Written once, here (plain C++, header-only, so that both sides and the
// in-process libraries share it); the Python shim's constants (capture/shim/sawtooth_shim/wire.py)
// are checked against this file by a test (capture.wire_contract) that fails on any drift.
// Little-endian.
//
//   frame   = header (8 bytes) + payload (header.length bytes, at most kMaxPayload)
//   header  = u32 length, u16 type, u8 stream, u8 flags
//   hello   = the first frame of every connection: kMagic (8 bytes), u16 protocol version,
//             u16 reserved (0), then a JSON object. The recorder refuses a peer without the magic
//             or of another version, naming both versions.
//
// Modules (protocol 3): the shim names the program's modules in Modules frames, with ids of its
// process (the tracker's records use the shim's ids: both run in one process); each record says the
// module its bytes belong to and the pass that made it, when its sender knows (the tracker, on the
// allocating thread), and ModuleEnter/ModuleExit records mark each call of a module on a thread.
//
// Streams: every record of one stream is in time order. A stream that sends Watermark frames
// promises, with each, that it has sent every record stamped before that time (batched senders:
// the tracker's drain thread, the CPU profiler's chunks); a stream that never does is sent as it
// happens (the shim's phase markers and tags) and the recorder holds it back briefly instead.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/util/result.h"

namespace sawtooth::wire {

inline constexpr std::string_view kMagic = "SAWTWIRE";  // 8 bytes, no terminator on the wire
// 1: hellos were a bare JSON object (before the magic); 2: magic and version; 3: 48-byte records
// with a module and a pass, Modules frames, ModuleEnter/ModuleExit records.
inline constexpr uint16_t kProtocolVersion = 3;
inline constexpr size_t kHelloPrefixSize = 12;  // magic, u16 version, u16 reserved
inline constexpr uint32_t kMaxPayload = 8u << 20;
inline constexpr size_t kHeaderSize = 8;
inline constexpr uint32_t kNoStack = 0xffffffffu;
inline constexpr uint32_t kNoModule = 0xffffffffu;
inline constexpr uint16_t kMaxStackDepth = 256;

enum class FrameType : uint16_t {
  Hello = 1,      // magic, version, then a JSON object: role, pid, and what the sender knows (rank, argv...)
  Meta = 2,       // JSON object of string values for the trace's meta table
  Records = 3,    // n x Record
  Frames = 4,     // n x {u32 id, i32 line, u16 name bytes, u16 file bytes, name, file}
  Stacks = 5,     // n x {u32 id, u16 depth, u32 frame id[depth]} (innermost frame first)
  Names = 6,      // n x {u32 id, u16 bytes, text}: phase, annotation and kernel names
  Kernels = 7,    // n x Kernel
  Watermark = 8,  // i64 t_ns: every record of this stream before t_ns has been sent
  Idle = 9,       // i64 t_ns: as Watermark, and the stream sends nothing until its next frame
  Notice = 10,    // JSON {level: info|warning, message}: shown to the user
  Bye = 11,       // JSON {reason}: the sender finished its final delivery
  Modules = 12,   // n x {u32 id, u32 parent (kNoModule: a root), i64 parameter bytes, u16 name bytes,
                  //      u16 class bytes, name, class}: a parent before its children
};

enum class RecordKind : uint8_t {
  Allocator = 0,        // action: sawtooth::Action's value (core/model/action.h); device -1 is the CPU
  Driver = 1,           // CUPTI device memory: action Alloc or FreeCompleted
  Sample = 2,           // device memory in use: size = used bytes, addr = total bytes
  Tag = 3,              // the live block holding addr is of category `action` (sawtooth::Category's value)
  PhaseBegin = 4,       // addr = name id
  PhaseEnd = 5,         // addr = name id (ends the innermost open phase of that name)
  AnnotationBegin = 6,  // addr = name id, stream = range id
  AnnotationEnd = 7,    // stream = range id
  ModuleEnter = 8,      // module = the module, pass = its pass (forward or recompute), stream = thread id
  ModuleExit = 9,       // module = the module, stream = thread id (ends its innermost open call there)
};
inline constexpr uint8_t kRecordKindCount = 10;

// The shim's streams on its connection (the recorder treats every stream alike: these are the
// shim's own convention, kept here so that both languages name them once).
enum class ShimStream : uint8_t {
  Live = 0,         // phase markers and tags as they happen (no watermarks)
  Cpu = 1,          // CPU allocations, in chunks closed by a watermark
  CudaHistory = 2,  // PyTorch's history read back (the portable path), in batches with watermarks
};
inline constexpr int16_t kCpuDevice = -1;

#pragma pack(push, 1)
struct Record {
  int64_t t_ns;  // CLOCK_MONOTONIC
  uint64_t addr;
  int64_t size;
  uint64_t stream;
  uint32_t stack;  // kNoStack, or an id from this connection's Stacks frames
  int16_t device;
  uint8_t action;
  uint8_t kind;     // RecordKind
  uint32_t module = kNoModule;  // or a module id of the process's Modules frames (a Tag's: the block's owner)
  uint8_t pass = 0;             // sawtooth::Pass; an allocator record's module and pass are the sender's
                                // knowledge only when its hello says "modules": true
  uint8_t reserved[3] = {};
};
struct Kernel {
  int64_t begin_ns;
  int64_t end_ns;
  uint32_t name;  // an id from this connection's Names frames
  uint32_t stream;
  int16_t device;
  uint16_t reserved;
  uint32_t reserved2;
};
#pragma pack(pop)
static_assert(sizeof(Record) == 48, "the Python shim packs 48-byte records");
static_assert(sizeof(Kernel) == 32);

struct Header {
  uint32_t length = 0;
  FrameType type = FrameType::Hello;
  uint8_t stream = 0;
  uint8_t flags = 0;
};

inline void encodeHeader(const Header& h, char out[kHeaderSize]) {
  const uint16_t type = static_cast<uint16_t>(h.type);
  std::memcpy(out, &h.length, 4);
  std::memcpy(out + 4, &type, 2);
  out[6] = static_cast<char>(h.stream);
  out[7] = static_cast<char>(h.flags);
}

inline Header decodeHeader(const char in[kHeaderSize]) {
  Header h;
  uint16_t type = 0;
  std::memcpy(&h.length, in, 4);
  std::memcpy(&type, in + 4, 2);
  h.type = static_cast<FrameType>(type);
  h.stream = static_cast<uint8_t>(in[6]);
  h.flags = static_cast<uint8_t>(in[7]);
  return h;
}

// Appends a whole frame (header and payload) to `out`.
inline void appendFrame(std::string& out, FrameType type, uint8_t stream, std::string_view payload) {
  char header[kHeaderSize];
  encodeHeader({static_cast<uint32_t>(payload.size()), type, stream, 0}, header);
  out.append(header, kHeaderSize);
  out.append(payload);
}

template <typename T>
inline void appendPod(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// A hello's payload: the magic, this protocol's version, then the sender's JSON object.
inline std::string helloPayload(std::string_view json) {
  std::string out(kMagic);
  const uint16_t version = kProtocolVersion, reserved = 0;
  out.append(reinterpret_cast<const char*>(&version), 2);
  out.append(reinterpret_cast<const char*>(&reserved), 2);
  out.append(json);
  return out;
}

// The JSON object of a hello, or why the peer is refused: not one of ours, or another version.
inline Result<std::string_view> helloJson(std::string_view payload) {
  if (payload.size() < kHelloPrefixSize || payload.substr(0, kMagic.size()) != kMagic) {
    if (!payload.empty() && payload.front() == '{')
      return Error{"the peer speaks wire protocol 1 (a hello without magic or version), this recorder speaks " +
                   std::to_string(kProtocolVersion) +
                   ": the program loaded a shim or library of an older Sawtooth; use the ones that come with this "
                   "sawtooth-record"};
    return Error{"the peer is not a Sawtooth recording library (its first frame lacks the magic " + std::string(kMagic) +
                 ")"};
  }
  uint16_t version = 0;
  std::memcpy(&version, payload.data() + kMagic.size(), 2);
  if (version != kProtocolVersion)
    return Error{"the peer speaks wire protocol " + std::to_string(version) + ", this recorder speaks " +
                 std::to_string(kProtocolVersion) + ": use the shim and libraries that come with this sawtooth-record"};
  return payload.substr(kHelloPrefixSize);
}

// The environment variable that names the recorder's socket in the recorded program.
inline constexpr const char* kSocketEnv = "SAWTOOTH_SOCKET";

}  // namespace sawtooth::wire
