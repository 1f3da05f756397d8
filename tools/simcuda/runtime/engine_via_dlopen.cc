// The static runtime's way to the device: every engine entry point (include/simcuda/engine.h) as a
// local trampoline that dlopens libcuda.so.1 on first use and calls the symbol found there, as
// real static cudart reaches the driver through dlopen("libcuda.so.1"). Compiled only into
// libsimcudart_static.a, with SIMCUDA_ENGINE_HIDDEN so that these definitions stay inside the
// program. A signature that drifts from engine.h fails to compile (conflicting C declarations).
// Must never link libcuda.so.1 at build time; when it cannot be loaded, say so and exit with
// status 2 (there is no device to fall back on).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "simcuda/engine.h"

#ifndef SIMCUDA_ENGINE_HIDDEN
#error "engine_via_dlopen.cc belongs to the static runtime only (SIMCUDA_ENGINE_HIDDEN)"
#endif

namespace {

[[noreturn]] void Fail(const char* what, const char* detail) {
  std::fprintf(stderr, "simcuda static runtime: %s: %s\n", what, detail != nullptr ? detail : "?");
  std::fflush(stderr);
  std::_Exit(2);
}

void* Driver() {
  static void* const handle = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) Fail("cannot load libcuda.so.1", dlerror());
    return h;
  }();
  return handle;
}

void* EngineSymbol(const char* name) {
  void* symbol = dlsym(Driver(), name);
  if (symbol == nullptr) Fail("libcuda.so.1 is not the simulated driver; missing", name);
  return symbol;
}

}  // namespace

#define SIMCUDA_FORWARD(ret, name, params, args)                    \
  ret name params {                                                 \
    using Fn = ret(*) params;                                       \
    static const Fn fn = reinterpret_cast<Fn>(EngineSymbol(#name)); \
    return fn args;                                                 \
  }

SIMCUDA_FORWARD(void, simcuda_engine_init, (void), ())
SIMCUDA_FORWARD(uint64_t, simcuda_now_ns, (void), ())
SIMCUDA_FORWARD(uint32_t, simcuda_next_correlation_id, (void), ())
SIMCUDA_FORWARD(void, simcuda_report_api,
                (uint8_t domain, uint32_t cbid, uint32_t correlation_id, uint64_t start_ns,
                 uint64_t end_ns, int32_t return_value),
                (domain, cbid, correlation_id, start_ns, end_ns, return_value))
SIMCUDA_FORWARD(void, simcuda_api_begin, (simcuda_api_call * call, uint8_t domain, uint32_t cbid),
                (call, domain, cbid))
SIMCUDA_FORWARD(void, simcuda_api_end, (simcuda_api_call * call, int32_t return_value),
                (call, return_value))
SIMCUDA_FORWARD(void, simcuda_api_nested_begin,
                (simcuda_api_call * nested, const simcuda_api_call* outer, uint32_t cbid),
                (nested, outer, cbid))
SIMCUDA_FORWARD(void, simcuda_api_nested_end, (simcuda_api_call * nested, int32_t return_value),
                (nested, return_value))
SIMCUDA_FORWARD(simcuda_kernel*, simcuda_kernel_register,
                (const void* host_function, const char* device_name), (host_function, device_name))
SIMCUDA_FORWARD(simcuda_kernel*, simcuda_kernel_lookup, (const void* function), (function))
SIMCUDA_FORWARD(const char*, simcuda_kernel_name, (const simcuda_kernel* kernel), (kernel))
SIMCUDA_FORWARD(simcuda_stream*, simcuda_stream_resolve,
                (const void* handle, int per_thread_default), (handle, per_thread_default))
SIMCUDA_FORWARD(simcuda_status, simcuda_stream_create,
                (unsigned flags, int priority, simcuda_stream** out), (flags, priority, out))
SIMCUDA_FORWARD(simcuda_status, simcuda_stream_destroy, (simcuda_stream * stream), (stream))
SIMCUDA_FORWARD(simcuda_status, simcuda_stream_synchronize,
                (simcuda_stream * stream, uint32_t correlation_id), (stream, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_stream_query, (simcuda_stream * stream), (stream))
SIMCUDA_FORWARD(simcuda_status, simcuda_stream_wait_event,
                (simcuda_stream * stream, simcuda_event* event, uint32_t correlation_id),
                (stream, event, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_device_synchronize, (uint32_t correlation_id),
                (correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_launch_kernel,
                (simcuda_stream * stream, const simcuda_kernel* kernel, simcuda_dim3 grid,
                 simcuda_dim3 block, size_t dynamic_shared_memory, uint32_t correlation_id),
                (stream, kernel, grid, block, dynamic_shared_memory, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_launch_kernel_ex,
                (simcuda_stream * stream, const simcuda_kernel* kernel, simcuda_dim3 grid,
                 simcuda_dim3 block, size_t dynamic_shared_memory, uint32_t correlation_id,
                 const simcuda_launch_info* info),
                (stream, kernel, grid, block, dynamic_shared_memory, correlation_id, info))
SIMCUDA_FORWARD(simcuda_status, simcuda_memcpy,
                (simcuda_stream * stream, void* dst, const void* src, size_t bytes, int kind,
                 int async, uint32_t correlation_id),
                (stream, dst, src, bytes, kind, async, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_memset,
                (simcuda_stream * stream, void* dst, int value, size_t bytes, int async,
                 uint32_t correlation_id),
                (stream, dst, value, bytes, async, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_device_alloc, (size_t bytes, void** out), (bytes, out))
SIMCUDA_FORWARD(simcuda_status, simcuda_device_free, (void* ptr), (ptr))
SIMCUDA_FORWARD(simcuda_status, simcuda_device_free_async,
                (void* ptr, simcuda_stream* stream, uint32_t correlation_id),
                (ptr, stream, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_host_alloc, (size_t bytes, void** out), (bytes, out))
SIMCUDA_FORWARD(simcuda_status, simcuda_host_free, (void* ptr), (ptr))
SIMCUDA_FORWARD(simcuda_status, simcuda_host_register, (void* ptr, size_t bytes), (ptr, bytes))
SIMCUDA_FORWARD(simcuda_status, simcuda_host_unregister, (void* ptr), (ptr))
SIMCUDA_FORWARD(int, simcuda_memory_kind, (const void* ptr), (ptr))
SIMCUDA_FORWARD(simcuda_status, simcuda_event_create, (unsigned flags, simcuda_event** out),
                (flags, out))
SIMCUDA_FORWARD(simcuda_status, simcuda_event_destroy, (simcuda_event * event), (event))
SIMCUDA_FORWARD(simcuda_status, simcuda_event_record,
                (simcuda_event * event, simcuda_stream* stream, uint32_t correlation_id),
                (event, stream, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_event_query, (simcuda_event * event), (event))
SIMCUDA_FORWARD(simcuda_status, simcuda_event_synchronize,
                (simcuda_event * event, uint32_t correlation_id), (event, correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_event_elapsed_ms,
                (float* ms, simcuda_event* start, simcuda_event* end), (ms, start, end))
SIMCUDA_FORWARD(simcuda_status, simcuda_memcpy_2d,
                (simcuda_stream * stream, void* dst, size_t dst_pitch, const void* src,
                 size_t src_pitch, size_t width, size_t height, int kind, int async,
                 uint32_t correlation_id),
                (stream, dst, dst_pitch, src, src_pitch, width, height, kind, async,
                 correlation_id))
SIMCUDA_FORWARD(simcuda_status, simcuda_host_call,
                (simcuda_stream * stream, void (*host_fn)(void*), void* arg, uint32_t correlation_id),
                (stream, host_fn, arg, correlation_id))
SIMCUDA_FORWARD(size_t, simcuda_device_memory_in_use, (void), ())
SIMCUDA_FORWARD(void, simcuda_set_sync_mode, (int mode), (mode))
SIMCUDA_FORWARD(int, simcuda_sync_mode, (void), ())
SIMCUDA_FORWARD(void, simcuda_device_properties, (void* out), (out))
SIMCUDA_FORWARD(int, simcuda_device_attribute, (int attr, int* value), (attr, value))
SIMCUDA_FORWARD(simcuda_status, simcuda_stream_info,
                (simcuda_stream * stream, unsigned* flags, int* priority, unsigned long long* id),
                (stream, flags, priority, id))
