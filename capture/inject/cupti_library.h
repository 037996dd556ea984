#pragma once
// CUPTI's entry points, loaded at run time (dlopen) rather than linked: the injection library
// then needs no CUPTI of its own where the program already has one (every CUDA build of torch
// loads libcupti for Kineto), so it ships in the small `sawtooth` package and the wheel. The
// library is looked for by its soname: the copy already in the process first, then this
// library's RUNPATH (the build's CUPTI, or the sawtooth-recorder package's), then the system's.

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include <cupti.h>

namespace sawtooth::inject {

struct CuptiLibrary {
  static constexpr const char* kSoname = "libcupti.so.13";  // the CUPTI these headers describe

  CUptiResult (*activityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activityDisable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activityFlushAll)(uint32_t) = nullptr;
  CUptiResult (*activityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*activityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*activityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*activityRegisterTimestampCallback)(CUpti_TimestampCallbackFunc) = nullptr;
  CUptiResult (*getResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*getVersion)(uint32_t*) = nullptr;
  std::string path;  // the file it was loaded from

  // Empty when every entry point was found; otherwise why not (for a notice to the user).
  std::string load() {
    void* lib = dlopen(kSoname, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      return std::string(kSoname) + " was not found (" + (why ? why : "no reason given") +
             "): install a CUDA 13 build of torch in the program's environment, or the sawtooth-recorder package";
    }
    bool all = true;
    const auto sym = [lib, &all](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      all = all && fn != nullptr;
    };
    sym(activityEnable, "cuptiActivityEnable");
    sym(activityDisable, "cuptiActivityDisable");
    sym(activityFlushAll, "cuptiActivityFlushAll");
    sym(activityGetNextRecord, "cuptiActivityGetNextRecord");
    sym(activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
    sym(activityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
    sym(activityRegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback");
    sym(getResultString, "cuptiGetResultString");
    sym(getVersion, "cuptiGetVersion");
    if (!all) return std::string(kSoname) + " lacks entry points this library needs";
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(getVersion), &info) && info.dli_fname) path = info.dli_fname;
    return {};
  }

  std::string describe(CUptiResult rc) const {
    const char* text = nullptr;
    if (getResultString) getResultString(rc, &text);
    return text ? text : "CUPTI error " + std::to_string(static_cast<int>(rc));
  }
};

}  // namespace sawtooth::inject
