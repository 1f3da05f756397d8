// Engine API: initialization, clock, correlation ids, API-call reporting, kernel registration.
// Thin wrappers over Engine; must never block.
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "engine_core.h"
#include "kernel_names.h"
#include "simcuda/engine.h"
#include "sink_dispatch.h"

using simcuda::GetEngine;

SIMCUDA_ENGINE_API void simcuda_engine_init(void) { GetEngine(); }

SIMCUDA_ENGINE_API uint64_t simcuda_now_ns(void) { return simcuda::NowNs(); }

SIMCUDA_ENGINE_API uint32_t simcuda_next_correlation_id(void) {
  return GetEngine().NextCorrelationId();
}

SIMCUDA_ENGINE_API void simcuda_report_api(uint8_t domain, uint32_t cbid, uint32_t correlation_id,
                                           uint64_t start_ns, uint64_t end_ns,
                                           int32_t return_value) {
  if (!simcuda::Sinks().HasSink()) return;
  static thread_local const uint32_t tid = static_cast<uint32_t>(syscall(SYS_gettid));
  simcuda::ApiEvent e{};
  e.domain = static_cast<simcuda::ApiDomain>(domain);
  e.cbid = cbid;
  e.correlation_id = correlation_id;
  e.process_id = static_cast<uint32_t>(getpid());
  e.thread_id = tid;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.return_value = return_value;
  simcuda::Sinks().Deliver([&e](simcuda::ActivitySink& sink) { sink.OnApiExit(e); });
}

SIMCUDA_ENGINE_API simcuda_kernel* simcuda_kernel_register(const void* host_function,
                                                           const char* device_name) {
  if (host_function == nullptr || device_name == nullptr) return nullptr;
  auto& engine = GetEngine();
  const uint64_t duration = simcuda::config::KernelDurationNs(engine.config(), device_name);
  return reinterpret_cast<simcuda_kernel*>(
      engine.kernels().Register(host_function, device_name, duration));
}

SIMCUDA_ENGINE_API simcuda_kernel* simcuda_kernel_lookup(const void* function) {
  return reinterpret_cast<simcuda_kernel*>(GetEngine().kernels().Lookup(function));
}

SIMCUDA_ENGINE_API const char* simcuda_kernel_name(const simcuda_kernel* kernel) {
  if (kernel == nullptr) return nullptr;
  return reinterpret_cast<const simcuda::Kernel*>(kernel)->mangled_name.c_str();
}
