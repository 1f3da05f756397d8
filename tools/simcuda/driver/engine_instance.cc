// The process's one Engine: created on first use from the environment, deliberately never
// destroyed (device threads may still run during exit; destroying a condition variable they wait
// on would hang or crash). Must never run at library load: no global constructors.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "engine_core.h"
#include "sink_dispatch.h"

namespace simcuda {
namespace {

std::atomic<Engine*> g_engine{nullptr};
std::mutex g_init_mu;  // constant-initialized, trivially destructible
std::atomic<bool> g_config_failed{false};

void OnProcessExit() {
  Sinks().StopForExit();
  if (Engine* engine = g_engine.load(std::memory_order_acquire)) engine->BeginExit();
}

}  // namespace

Engine& GetEngine() {
  if (Engine* engine = g_engine.load(std::memory_order_acquire)) return *engine;
  auto parsed = config::ParseSimConfig([](const char* name) { return std::getenv(name); });
  if (!parsed.ok()) {
    // exit() runs atexit handlers, which may use CUDA again and land here: never exit twice.
    if (g_config_failed.exchange(true)) _exit(2);
    std::fprintf(stderr, "simcuda: %s\n", parsed.error.c_str());
    std::fflush(stderr);
    std::exit(2);
  }
  std::lock_guard lock(g_init_mu);
  Engine* engine = g_engine.load(std::memory_order_relaxed);
  if (engine == nullptr) {
    engine = new Engine(std::move(*parsed.value));
    g_engine.store(engine, std::memory_order_release);
    std::atexit(OnProcessExit);
  }
  return *engine;
}

void Engine::BeginExit() {
  exiting_.store(true, std::memory_order_release);
  if (NcclGroup* group = nccl_.load(std::memory_order_acquire)) group->Leave();
}

bool EngineStarted() { return g_engine.load(std::memory_order_acquire) != nullptr; }

}  // namespace simcuda

// What cuptiSubscribe and cuptiFinalize do on the real driver: wait for the work queued so far
// (tools/gpu/workloads/attach_probe.cu). Never starts the engine (no engine: nothing queued), and
// never waits once the process is exiting.
extern "C" __attribute__((visibility("default"))) void simcuda_wait_queued_work() {
  simcuda::Engine* engine = simcuda::g_engine.load(std::memory_order_acquire);
  if (engine != nullptr && !engine->Exiting()) engine->WaitAll();
}
