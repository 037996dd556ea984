#include "core/model/module_tree.h"

#include <fmt/format.h>

namespace sawtooth {

int ModuleTree::depth(uint32_t module) const {
  int d = 0;
  // Parents are earlier modules, so each step goes down and the walk ends.
  for (uint32_t m = module; m < modules.size() && modules[m].parent < m; m = modules[m].parent) ++d;
  return d;
}

uint32_t ModuleTree::root(uint32_t module) const {
  uint32_t m = module;
  while (m < modules.size() && modules[m].parent < m) m = modules[m].parent;
  return m;
}

std::string ModuleTree::fullName(uint32_t module) const {
  if (module >= modules.size()) return {};
  const uint32_t r = root(module);
  if (r == module) return modules[module].name;
  return modules[r].name + "." + modules[module].name;
}

std::string_view ModuleTree::shortName(uint32_t module) const {
  if (module >= modules.size()) return {};
  const std::string& name = modules[module].name;
  const uint32_t parent = modules[module].parent;
  if (parent >= module) return name;
  // A root's children carry no prefix; deeper ones start with their parent's name and a dot.
  if (modules[parent].parent < parent) {
    const std::string& p = modules[parent].name;
    if (name.size() > p.size() + 1 && name.starts_with(p) && name[p.size()] == '.')
      return std::string_view(name).substr(p.size() + 1);
  }
  return name;
}

std::vector<std::vector<uint32_t>> ModuleTree::children() const {
  std::vector<std::vector<uint32_t>> out(modules.size());
  for (uint32_t m = 0; m < modules.size(); ++m)
    if (modules[m].parent < m) out[modules[m].parent].push_back(m);
  return out;
}

uint32_t ModuleTree::find(std::string_view full_name) const {
  for (uint32_t m = 0; m < modules.size(); ++m)
    if (fullName(m) == full_name) return m;
  return kNoModule;
}

std::string checkModuleTree(const std::vector<Module>& modules) {
  for (size_t m = 0; m < modules.size(); ++m) {
    const uint32_t parent = modules[m].parent;
    if (parent == kNoModule) continue;
    if (parent >= modules.size())
      return fmt::format("module {} ('{}') names parent {}, which is not in the tree ({} modules)", m, modules[m].name,
                         parent, modules.size());
    if (parent >= m)
      return fmt::format("module {} ('{}') names parent {}, which does not come before it (a parent is listed before "
                         "its children)",
                         m, modules[m].name, parent);
  }
  return {};
}

}  // namespace sawtooth
