// Coexistence with the app's own CUPTI tool (torch.profiler's kineto, an Nsight injection, a
// hand-written one): CUPTI serves one subscriber and one set of activity-buffer callbacks per
// process, so whoever asks second gets nothing. Measured on an H200 (2026-11-26): torch.profiler
// started after the warm-up of a brrr run got an empty trace (0 kernel events) while brrr kept
// recording. The app's tool wins: these interposed entry points hand CUPTI over
// (CuptiYieldToAppTool: brrr's buffers flushed into its ring, its kinds, timestamps and
// subscription released; host-only from then on, said in the report) and then call the real
// function, so the tool sees what it would see without brrr. A tool that asks before brrr's
// setup makes that setup stand aside.
//
// The real function is the one the CALLER would have reached without brrr: looked up through the
// caller's own object first (dladdr of the return address, then dlsym on that object, which
// searches it and its dependencies). PyTorch's libtorch_cuda.so, loaded by a Python extension in a
// local scope, brings its own libcupti that RTLD_NEXT from libbrrr.so does not see: seen on an
// H200, where RTLD_NEXT alone found nothing and torch.profiler got no CUPTI at all. Then
// RTLD_NEXT (an app linked with libcupti), then an already loaded libcupti.
//
// A tool that reaches libcupti through dlopen + dlsym of its own bypasses these (then brrr keeps
// CUPTI, as before).
//
// Must never: change the arguments or the result of the app's call, or fail when the real
// function cannot be found (it returns CUPTI_ERROR_NOT_INITIALIZED, as a libcupti without it
// would fail).
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <dlfcn.h>

#include <atomic>

#include "shim/cupti_session.h"
#include "shim/real_functions.h"

#define BRRR_EXPORT __attribute__((visibility("default")))

namespace {

void* RealFor(const char* name, const void* caller) {
  Dl_info info{};
  if (caller != nullptr && dladdr(caller, &info) != 0 && info.dli_fname != nullptr &&
      info.dli_fname[0] != '\0') {
    if (void* object = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY)) {
      void* p = dlsym(object, name);
      dlclose(object);
      if (p != nullptr && !brrr::shim::IsInsideShim(p)) return p;
    }
  }
  if (void* p = brrr::shim::ResolveNext(name)) return p;
  for (const char* soname : {"libcupti.so.13", "libcupti.so.12"}) {
    if (void* lib = dlopen(soname, RTLD_NOLOAD | RTLD_LAZY)) {
      void* p = dlsym(lib, name);
      dlclose(lib);
      if (p != nullptr && !brrr::shim::IsInsideShim(p)) return p;
    }
  }
  return nullptr;
}

// The real function for this hook, found once (the first caller's view).
template <typename Fn>
Fn Real(std::atomic<void*>& slot, const char* name, const void* caller) {
  void* p = slot.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = RealFor(name, caller);
    slot.store(p, std::memory_order_release);
  }
  return reinterpret_cast<Fn>(p);
}

std::atomic<void*> g_subscribe{nullptr}, g_subscribe_v2{nullptr}, g_register{nullptr};

}  // namespace

extern "C" {

BRRR_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                                CUpti_CallbackFunc callback, void* userdata) {
  const auto real = Real<decltype(&cuptiSubscribe)>(g_subscribe, "cuptiSubscribe",
                                                    __builtin_return_address(0));
  brrr::shim::CuptiYieldToAppTool();
  return real != nullptr ? real(subscriber, callback, userdata) : CUPTI_ERROR_NOT_INITIALIZED;
}

BRRR_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber,
                                                   CUpti_CallbackFunc callback, void* userdata,
                                                   CUpti_SubscriberParams* params) {
  const auto real = Real<decltype(&cuptiSubscribe_v2)>(g_subscribe_v2, "cuptiSubscribe_v2",
                                                       __builtin_return_address(0));
  brrr::shim::CuptiYieldToAppTool();
  return real != nullptr ? real(subscriber, callback, userdata, params)
                         : CUPTI_ERROR_NOT_INITIALIZED;
}

BRRR_EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(
    CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed) {
  const auto real = Real<decltype(&cuptiActivityRegisterCallbacks)>(
      g_register, "cuptiActivityRegisterCallbacks", __builtin_return_address(0));
  brrr::shim::CuptiYieldToAppTool();
  return real != nullptr ? real(requested, completed) : CUPTI_ERROR_NOT_INITIALIZED;
}

}  // extern "C"
