#include "capture/inject/module_builtins.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "capture/inject/module_context.h"
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
constexpr size_t kArgumentsOffset = size_t{1} << (8 * sizeof(size_t) - 1);  // PY_VECTORCALL_ARGUMENTS_OFFSET

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
  Object (*type_from_spec)(void*) = nullptr;         // PyType_FromSpec
  Object (*generic_alloc)(Object, Ssize) = nullptr;  // PyType_GenericAlloc
  Object (*vectorcall_call)(Object, Object, Object) = nullptr;  // PyVectorcall_Call: tp_call by the vectorcall
  Object (*method_new)(Object, Object) = nullptr;    // PyMethod_New
  Object (*dict_get)(Object, Object) = nullptr;      // PyDict_GetItem: borrowed, errors suppressed
  Object (*vectorcall)(Object, Object const*, size_t, Object) = nullptr;  // PyObject_Vectorcall
  Object (*generic_getattr)(Object, Object) = nullptr;                   // PyObject_GenericGetAttr
  Object (*get_attr)(Object, Object) = nullptr;                          // PyObject_GetAttr
  int (*equals_ascii)(Object, const char*) = nullptr;                    // PyUnicode_CompareWithASCIIString: 0 if equal
  Object none = nullptr;  // &_Py_NoneStruct
  Object true_ = nullptr;  // &_Py_TrueStruct

  bool found() const {
    return new_function && long_from && long_as && long_as_pointer && error_occurred && clear_error && list_append &&
           inc_ref && dec_ref && none;
  }
  bool canWrapCalls() const {
    return found() && type_from_spec && generic_alloc && vectorcall_call && method_new && dict_get && vectorcall && generic_getattr && get_attr && equals_ascii && true_;
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
    findPythonSymbol(a.type_from_spec, "PyType_FromSpec");
    findPythonSymbol(a.generic_alloc, "PyType_GenericAlloc");
    findPythonSymbol(a.vectorcall_call, "PyVectorcall_Call");
    findPythonSymbol(a.method_new, "PyMethod_New");
    findPythonSymbol(a.dict_get, "PyDict_GetItem");
    findPythonSymbol(a.vectorcall, "PyObject_Vectorcall");
    findPythonSymbol(a.generic_getattr, "PyObject_GenericGetAttr");
    findPythonSymbol(a.get_attr, "PyObject_GetAttr");
    findPythonSymbol(a.equals_ascii, "PyUnicode_CompareWithASCIIString");
    findPythonSymbol(a.none, "_Py_NoneStruct");
    findPythonSymbol(a.true_, "_Py_TrueStruct");
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

// Module.__call__ in C (module_builtins.h): what it calls, all owned and kept until exit.
struct CallWrapper {
  Object descriptor = nullptr;  // the one instance of the type below, installed as Module.__call__
  Object type = nullptr;        // the class it was made for
  Object original = nullptr;    // Module.__call__ before it
  Object fallback = nullptr;    // the shim's Python wrapper: a module not remembered yet, attribute access
  Object flags = nullptr;       // torch.compiler's namespace ...
  Object flag = nullptr;        // ... and the name of its flag for a graph being traced or exported
  bool pass_through = false;    // paused, or removed under another wrapper
};

CallWrapper& callWrapper() {
  static auto* wrapper = new CallWrapper();  // never destroyed: used until exit
  return *wrapper;
}

void replace(Object& slot, Object value) {
  const CPython& py = cpython();
  py.inc_ref(value);
  if (slot) py.dec_ref(slot);
  slot = value;
}

// `module(...)`: CPython finds the descriptor on the class, sees it is a method descriptor and
// calls it through its vectorcall with the module first (no bound method made); the arguments go on
// as they came. The call is marked when the module is remembered, handed to the shim's Python
// wrapper when not (it names the module), and passed straight to the original while torch traces a
// graph for real (export) or the shim says so. What the call raises is the program's: its NULL goes
// back as it came, the exit marked first (the marks touch no Python state).
Object moduleVectorcall(Object, Object const* args, size_t nargsf, Object kwnames) {
  const CPython& py = cpython();
  const CallWrapper& w = callWrapper();
  const size_t nargs = nargsf & ~kArgumentsOffset;
  if (w.pass_through || nargs < 1 || py.dict_get(w.flags, w.flag) == py.true_)
    return py.vectorcall(w.original, args, nargsf, kwnames);
  const auto& map = remembered();
  const auto it = map.find(args[0]);
  if (it == map.end()) return py.vectorcall(w.fallback, args, nargsf, kwnames);
  const uint32_t id = it->second.id;
  // The module's own call again, directly inside its marked one (torch.compile's OptimizedModule,
  // marked as its original module, calls the original's bound __call__): one call, marked once.
  if (innermostCallIs(id)) return py.vectorcall(w.original, args, nargsf, kwnames);
  try {
    moduleEnter(id, 0);
  } catch (...) {
    return py.vectorcall(w.original, args, nargsf, kwnames);
  }
  Object result = py.vectorcall(w.original, args, nargsf, kwnames);
  try {
    moduleExit(id);
  } catch (...) {
  }
  return result;
}

// Its attributes are the Python wrapper's (its name, signature, __wrapped__ ...), for code that
// reads `Module.__dict__["__call__"]` itself rather than through the descriptor, and for
// `module.__call__.__func__`: also those its type would answer first (`__module__`, `__doc__`:
// inspect.getmodule(module.__call__) is torch's module, as unrecorded).
Object moduleCallAttribute(Object self, Object name) {
  const CPython& py = cpython();
  if (py.equals_ascii(name, "__module__") == 0 || py.equals_ascii(name, "__doc__") == 0)
    return py.get_attr(callWrapper().fallback, name);
  if (Object own = py.generic_getattr(self, name)) return own;
  py.clear_error();
  return py.get_attr(callWrapper().fallback, name);
}

// `Module.__call__` (the class's attribute: dynamo, inspect, code that wraps it) is the Python
// wrapper, a plain function dynamo traces through as before. `module.__call__` is a bound method of
// this object, so that `super().__call__(...)` in a subclass's own __call__ (transformers' decoder
// layers: GradientCheckpointingLayer) is marked here too, with no Python frame of ours in the
// stacks of everything the layer allocates; its attributes are the Python wrapper's. While dynamo
// compiles, the class holds the Python wrapper (modules.py), so what it traces reads that instead.
Object moduleCallGet(Object self, Object instance, Object) {
  const CPython& py = cpython();
  const CallWrapper& w = callWrapper();
  if (!instance || instance == py.none) {
    py.inc_ref(w.fallback);
    return w.fallback;
  }
  return py.method_new(self, instance);
}

struct TypeSlot {
  int slot;
  void* function;
};
struct MemberDef {
  const char* name;
  int type;
  Ssize offset;
  int flags;
  const char* doc;
};
struct TypeSpec {
  const char* name;
  int basicsize;
  int itemsize;
  unsigned int flags;
  TypeSlot* slots;
};
constexpr int kTpCall = 50, kTpDescrGet = 54, kTpDoc = 56, kTpGetattro = 58, kTpMembers = 72;  // typeslots.h
constexpr unsigned kHaveVectorcall = 1u << 11, kMethodDescriptor = 1u << 17, kHaveVersionTag = 1u << 18;  // Py_TPFLAGS_*
constexpr int kMemberSsize = 19, kMemberReadOnly = 1;  // structmember.h: T_PYSSIZET, READONLY

// The instance: CPython's object header, the vectorcall function CPython finds at the offset the
// "__vectorcalloffset__" member gives, and the list of weak references to it (as a function can,
// it takes them: `weakref.WeakMethod(module.__call__)` holds one).
struct CallObject {
  Ssize refcount;
  Object type;
  Object (*vectorcall)(Object, Object const*, size_t, Object);
  Object weak_references;
};

MemberDef g_call_members[] = {
    {"__vectorcalloffset__", kMemberSsize, static_cast<Ssize>(offsetof(CallObject, vectorcall)), kMemberReadOnly, nullptr},
    {"__weaklistoffset__", kMemberSsize, static_cast<Ssize>(offsetof(CallObject, weak_references)), kMemberReadOnly, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};
TypeSlot g_call_slots[] = {
    {kTpCall, nullptr},  // PyVectorcall_Call, set before the type is made
    {kTpDescrGet, reinterpret_cast<void*>(&moduleCallGet)},
    {kTpGetattro, reinterpret_cast<void*>(&moduleCallAttribute)},
    {kTpMembers, g_call_members},
    {kTpDoc, const_cast<char*>("Module.__call__ with Sawtooth's marks of each call (module attribution).")},
    {0, nullptr},
};
TypeSpec g_call_spec = {"sawtooth_shim.ModuleCall", static_cast<int>(sizeof(CallObject)), 0,
                        kHaveVectorcall | kMethodDescriptor | kHaveVersionTag, g_call_slots};

// call_descriptor(cls, original, fallback, flags, flag): Module.__call__ in C for `cls`, the same
// object every time (its callees replaced), or None where CPython's API for it is not found.
Object callDescriptor(Object, Object const* args, Ssize count) {
  const CPython& py = cpython();
  if (count != 5 || !py.canWrapCalls()) return none();
  CallWrapper& w = callWrapper();
  if (w.descriptor && w.type != args[0]) return none();  // one class only: Module
  if (!w.descriptor) {
    g_call_slots[0].function = reinterpret_cast<void*>(py.vectorcall_call);
    Object type = py.type_from_spec(&g_call_spec);
    Object descriptor = type ? py.generic_alloc(type, 0) : nullptr;
    if (!descriptor) {
      py.clear_error();
      return none();
    }
    static_cast<CallObject*>(descriptor)->vectorcall = &moduleVectorcall;
    w.descriptor = descriptor;  // the type stays alive through its instance
    py.dec_ref(type);
    replace(w.type, args[0]);
  }
  replace(w.original, args[1]);
  replace(w.fallback, args[2]);
  replace(w.flags, args[3]);
  replace(w.flag, args[4]);
  w.pass_through = false;
  py.inc_ref(w.descriptor);
  return w.descriptor;
}

// call_pass_through(flag): while true, the C Module.__call__ calls the original unmarked.
Object callPassThrough(Object, Object flag) {
  callWrapper().pass_through = flag == cpython().true_;
  return none();
}

MethodDef g_methods[] = {
    {"sawtooth_module_enter", reinterpret_cast<void*>(&enter), kMethO, nullptr},
    {"sawtooth_module_exit", reinterpret_cast<void*>(&exit), kMethO, nullptr},
    {"sawtooth_module_remember", reinterpret_cast<void*>(&remember), kMethFastcall, nullptr},
    {"sawtooth_module_forget", reinterpret_cast<void*>(&forget), kMethO, nullptr},
    {"sawtooth_module_call_descriptor", reinterpret_cast<void*>(&callDescriptor), kMethFastcall, nullptr},
    {"sawtooth_module_call_pass_through", reinterpret_cast<void*>(&callPassThrough), kMethO, nullptr},
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
