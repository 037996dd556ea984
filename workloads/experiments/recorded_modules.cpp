#include "workloads/experiments/recorded_modules.h"

#include "workloads/experiments/torch_support.h"

namespace sawtooth::workloads {

std::string moduleClassName(const torch::nn::Module& module) {
  // Demangled: "torch::nn::LinearImpl", "sawtooth::workloads::(anonymous namespace)::BlockImpl".
  std::string name = module.name();
  if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "Impl") == 0) name.resize(name.size() - 4);
  return name;
}

RecordedModules::RecordedModules(capture::CaptureSession& session, const torch::nn::Module& root, std::string root_name)
    : session_(session) {
  std::unordered_map<std::string, uint32_t> by_path;
  for (const auto& item : root.named_modules()) {
    const std::string& path = item.key();
    const torch::nn::Module* module = item.value().get();
    if (ids_.count(module)) continue;  // shared: the first name stays
    Module m;
    m.class_name = moduleClassName(*module);
    if (path.empty()) {
      m.name = root_name.empty() ? m.class_name : root_name;
    } else {
      m.name = path;
      const size_t dot = path.rfind('.');
      auto parent = by_path.find(dot == std::string::npos ? std::string() : path.substr(0, dot));
      if (parent == by_path.end()) continue;  // under a shared module named before
      m.parent = parent->second;
    }
    std::vector<torch::Tensor> own;
    for (const auto& p : module->named_parameters(/*recurse=*/false)) {
      const torch::Tensor& t = p.value();
      if (!t.defined() || owners_.count(t.unsafeGetTensorImpl())) continue;  // tied: its first module owns it
      m.parameter_bytes += t.numel() * static_cast<int64_t>(t.element_size());
      own.push_back(t);
    }
    const uint32_t id = session_.defineModule(std::move(m));
    ids_[module] = id;
    by_path[path] = id;
    for (const auto& t : own) {
      owners_[t.unsafeGetTensorImpl()] = id;
      parameters_.push_back(t);
    }
  }
}

uint32_t RecordedModules::idOf(const torch::nn::Module& module) const {
  auto it = ids_.find(&module);
  return it == ids_.end() ? kNoModule : it->second;
}

uint32_t RecordedModules::ownerOf(const torch::Tensor& parameter) const {
  auto it = owners_.find(parameter.unsafeGetTensorImpl());
  return it == owners_.end() ? kNoModule : it->second;
}

torch::Tensor RecordedModules::forwardSequential(torch::nn::Sequential& net, torch::Tensor x) {
  capture::ModuleScope scope(&session_, idOf(*net));
  for (auto& child : *net) {
    capture::ModuleScope inner(&session_, idOf(*child.ptr()));
    x = child.forward(x);
  }
  return x;
}

void RecordedModules::tagOwned(const torch::Tensor& t, const torch::Tensor& parameter, Category category) const {
  if (t.defined() && t.data_ptr()) session_.tag(t.data_ptr(), deviceIndex(t), category, ownerOf(parameter));
}

void RecordedModules::tagParameters() const {
  for (const auto& p : parameters_) tagOwned(p, p, Category::Parameter);
}

void RecordedModules::tagGradients() const {
  for (const auto& p : parameters_) tagOwned(p.grad(), p, Category::Gradient);
}

void RecordedModules::tagOptimizerState(const ForeachOptimizer& optimizer) const {
  for (const auto& [state, parameter] : optimizer.stateByParameter())
    tagOwned(state, parameter, Category::OptimizerState);
}

}  // namespace sawtooth::workloads
