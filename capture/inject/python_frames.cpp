#include "capture/inject/python_frames.h"

#include "capture/inject/python_api.h"

namespace sawtooth::tracker {
namespace {

struct CPython {
  using Object = void*;
  int (*is_initialized)() = nullptr;
  int (*gil_ensure)() = nullptr;  // PyGILState_STATE is an enum: an int
  void (*gil_release)(int) = nullptr;
  Object (*get_attr)(Object, const char*) = nullptr;
  const char* (*utf8)(Object) = nullptr;
  int (*addr_to_line)(Object, int) = nullptr;
  void (*dec_ref)(Object) = nullptr;
  void (*clear_error)() = nullptr;

  bool found() const {
    return is_initialized && gil_ensure && gil_release && get_attr && utf8 && addr_to_line && dec_ref && clear_error;
  }
};

const CPython& cpython() {
  static const CPython api = [] {
    CPython a;
    findPythonSymbol(a.is_initialized, "Py_IsInitialized");
    findPythonSymbol(a.gil_ensure, "PyGILState_Ensure");
    findPythonSymbol(a.gil_release, "PyGILState_Release");
    findPythonSymbol(a.get_attr, "PyObject_GetAttrString");
    findPythonSymbol(a.utf8, "PyUnicode_AsUTF8");
    findPythonSymbol(a.addr_to_line, "PyCode_Addr2Line");
    findPythonSymbol(a.dec_ref, "Py_DecRef");
    findPythonSymbol(a.clear_error, "PyErr_Clear");
    return a;
  }();
  return api;
}

std::string textOf(const CPython& py, CPython::Object code, const char* attribute) {
  CPython::Object value = py.get_attr(code, attribute);
  if (!value) {
    py.clear_error();
    return "??";
  }
  const char* text = py.utf8(value);
  std::string out = text ? text : "??";
  if (!text) py.clear_error();
  py.dec_ref(value);
  return out;
}

}  // namespace

bool namePythonFrames(const std::vector<std::pair<const void*, int>>& frames, std::vector<PythonFrameName>& out) {
  out.clear();
  const CPython& py = cpython();
  if (!py.found() || !py.is_initialized()) return false;
  const int gil = py.gil_ensure();
  out.reserve(frames.size());
  for (const auto& [code, lasti] : frames) {
    auto* object = const_cast<void*>(code);
    out.push_back({textOf(py, object, "co_name"), textOf(py, object, "co_filename"), py.addr_to_line(object, lasti)});
  }
  py.gil_release(gil);
  return true;
}

}  // namespace sawtooth::tracker
