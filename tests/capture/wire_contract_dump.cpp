// Prints the wire contract of core/recording/wire.h and core/model/action.h as JSON, for
// tests/tools/check_wire_contract.py to compare with the Python shim's constants (wire.py).
#include <nlohmann/json.hpp>

#include <iostream>

#include "core/model/action.h"
#include "core/recording/wire.h"

int main() {
  using namespace sawtooth;
  nlohmann::json j;
  j["magic"] = std::string(wire::kMagic);
  j["protocol_version"] = wire::kProtocolVersion;
  j["hello_prefix_size"] = wire::kHelloPrefixSize;
  j["header_size"] = wire::kHeaderSize;
  j["max_payload"] = wire::kMaxPayload;
  j["no_stack"] = wire::kNoStack;
  j["no_module"] = wire::kNoModule;
  j["max_stack_depth"] = wire::kMaxStackDepth;
  j["record_size"] = sizeof(wire::Record);
  j["kernel_size"] = sizeof(wire::Kernel);
  j["cpu_device"] = wire::kCpuDevice;
  j["socket_env"] = wire::kSocketEnv;
  using F = wire::FrameType;
  const std::pair<const char*, F> frames[] = {
      {"hello", F::Hello},   {"meta", F::Meta},   {"records", F::Records},     {"frames", F::Frames},
      {"stacks", F::Stacks}, {"names", F::Names}, {"kernels", F::Kernels},     {"watermark", F::Watermark},
      {"idle", F::Idle},     {"notice", F::Notice}, {"bye", F::Bye},          {"modules", F::Modules}};
  for (const auto& [n, v] : frames) j["frame_types"][n] = static_cast<int>(v);
  using K = wire::RecordKind;
  const std::pair<const char*, K> kinds[] = {{"allocator", K::Allocator},        {"driver", K::Driver},
                                             {"sample", K::Sample},              {"tag", K::Tag},
                                             {"phase_begin", K::PhaseBegin},     {"phase_end", K::PhaseEnd},
                                             {"annotation_begin", K::AnnotationBegin},
                                             {"annotation_end", K::AnnotationEnd},
                                             {"module_enter", K::ModuleEnter},   {"module_exit", K::ModuleExit}};
  for (const auto& [n, v] : kinds) j["record_kinds"][n] = static_cast<int>(v);
  j["record_kind_count"] = wire::kRecordKindCount;
  using S = wire::ShimStream;
  for (const auto& [n, v] : {std::pair{"live", S::Live}, {"cpu", S::Cpu}, {"cuda_history", S::CudaHistory}})
    j["shim_streams"][n] = static_cast<int>(v);
  for (int a = 0; a < kActionCount; ++a) j["actions"][std::string(name(static_cast<Action>(a)))] = a;
  for (int c = 0; c < kCategoryCount; ++c) j["categories"][std::string(name(static_cast<Category>(c)))] = c;
  for (int p = 0; p < kPassCount; ++p) j["passes"][std::string(name(static_cast<Pass>(p)))] = p;
  std::cout << j.dump(1) << "\n";
}
