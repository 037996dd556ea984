#include "capture/inject/module_builtins.h"

#include <cstdint>
#include <unordered_map>

#include "capture/inject/python_api.h"
#include "capture/inject/torch_tracker.h"

namespace sawtooth::tracker {
namespace {

using Object = void*;
using Ssize = intptr_t;  // Py_ssize_t

// CPython's PyMethodDef, part of the stable ABI.
struct MethodDef {
  const char* name;
  void* function;
  int flags;
  const char* doc;
};
constexpr int kMethO = 0x0008;
constexpr int kMethFastcall = 0x0080;

struct CPython {
  Object (*new_function)(MethodDef*, Object, Object) = nullptr;  // PyCFunction_NewEx
  Object (*long_from)(unsigned long) = nullptr;
  unsigned long (*long_as)(Object) = nullptr;
  void* (*long_as_pointer)(Object) = nullptr;
  Object (*error_occurred)() = nullptr;
  void (*clear_error)() = nullptr;
  int (*list_append)(Object, Object) = nullptr;
  void (*inc_ref)(Object) = nullptr;
  void (*dec_ref)(Object) = nullptr;
  Object none = nullptr;  // &_Py_NoneStruct

  bool found() const {
    return new_function && long_from && long_as && long_as_pointer && error_occurred && clear_error && list_append &&
           inc_ref && dec_ref && none;
  }
};

const CPython& cpython() {
  static const CPython api = [] {
    CPython a;
    findPythonSymbol(a.new_function, "PyCFunction_NewEx");
    findPythonSymbol(a.long_from, "PyLong_FromUnsignedLong");
    findPythonSymbol(a.long_as, "PyLong_AsUnsignedLong");
    findPythonSymbol(a.long_as_pointer, "PyLong_AsVoidPtr");
    findPythonSymbol(a.error_occurred, "PyErr_Occurred");
    findPythonSymbol(a.clear_error, "PyErr_Clear");
    findPythonSymbol(a.list_append, "PyList_Append");
    findPythonSymbol(a.inc_ref, "Py_IncRef");
    findPythonSymbol(a.dec_ref, "Py_DecRef");
    findPythonSymbol(a.none, "_Py_NoneStruct");
    return a;
  }();
  return api;
}

struct Remembered {
  Object number;  // the id as a Python int, owned: enter returns it without making one
  uint32_t id;
};

// module address -> its id; guarded by the GIL.
std::unordered_map<const void*, Remembered>& remembered() {
  static auto* map = new std::unordered_map<const void*, Remembered>();  // never destroyed: used until exit
  return *map;
}

Object none() {
  const CPython& py = cpython();
  py.inc_ref(py.none);
  return py.none;
}

// An unsigned id from a Python int, or false (the error cleared).
bool idOf(Object number, uint32_t& id) {
  const CPython& py = cpython();
  const unsigned long value = py.long_as(number);
  if (py.error_occurred()) {
    py.clear_error();
    return false;
  }
  if (value > UINT32_MAX) return false;
  id = static_cast<uint32_t>(value);
  return true;
}

Object enter(Object, Object module) {
  const auto& map = remembered();
  const auto it = map.find(module);
  if (it == map.end()) return none();
  try {
    moduleEnter(it->second.id, 0);
  } catch (...) {
    return none();
  }
  cpython().inc_ref(it->second.number);
  return it->second.number;
}

Object exit(Object, Object number) {
  uint32_t id = 0;
  if (idOf(number, id)) {
    try {
      moduleExit(id);
    } catch (...) {
    }
  }
  return none();
}

Object remember(Object, Object const* args, Ssize count) {
  uint32_t id = 0;
  if (count != 2 || !idOf(args[1], id)) return none();
  const CPython& py = cpython();
  try {
    auto [it, added] = remembered().try_emplace(args[0], Remembered{args[1], id});
    if (!added) {
      py.dec_ref(it->second.number);
      it->second = {args[1], id};
    }
    py.inc_ref(args[1]);
  } catch (...) {
  }
  return none();
}

Object forget(Object, Object address) {
  const CPython& py = cpython();
  const void* module = py.long_as_pointer(address);
  if (py.error_occurred()) {
    py.clear_error();
    return none();
  }
  auto& map = remembered();
  if (const auto it = map.find(module); it != map.end()) {
    py.dec_ref(it->second.number);
    map.erase(it);
  }
  return none();
}

MethodDef g_methods[] = {
    {"sawtooth_module_enter", reinterpret_cast<void*>(&enter), kMethO, nullptr},
    {"sawtooth_module_exit", reinterpret_cast<void*>(&exit), kMethO, nullptr},
    {"sawtooth_module_remember", reinterpret_cast<void*>(&remember), kMethFastcall, nullptr},
    {"sawtooth_module_forget", reinterpret_cast<void*>(&forget), kMethO, nullptr},
};

}  // namespace

bool appendModuleBuiltins(void* list) {
  const CPython& py = cpython();
  if (!py.found() || !list) return false;
  for (MethodDef& method : g_methods) {
    Object function = py.new_function(&method, nullptr, nullptr);
    if (!function) {
      py.clear_error();
      return false;
    }
    const int rc = py.list_append(list, function);
    py.dec_ref(function);
    if (rc != 0) {
      py.clear_error();
      return false;
    }
  }
  return true;
}

}  // namespace sawtooth::tracker
