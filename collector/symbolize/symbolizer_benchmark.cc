// What symbolizing native return addresses costs at the report's end, frames of inlined calls
// included: addresses spread over this benchmark's own code (built with debug info, optimized:
// much of it inlined), first time (module opened, DWARF units walked) and cached.
//
// Must never: be read as a per-call cost of the profiled application (symbolization runs once,
// in the collector, after the run).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collector/symbolize/process_maps.h"
#include "collector/symbolize/symbolizer.h"

namespace brrr::symbolize {
namespace {

constexpr uint64_t kStride = 61;  // bytes between addresses
constexpr size_t kMaxAddresses = 4000;

// Addresses in this executable's code (return addresses: looked up one byte back).
std::vector<uint64_t> OwnCodeAddresses(const ProcessMaps& maps) {
  std::vector<uint64_t> pcs;
  const uint64_t here = reinterpret_cast<uint64_t>(&OwnCodeAddresses);
  const MappedRegion* region = maps.Find(here);
  if (region == nullptr) return pcs;
  for (uint64_t pc = region->start + 1; pc < region->end && pcs.size() < kMaxAddresses;
       pc += kStride) {
    pcs.push_back(pc);
  }
  return pcs;
}

void Symbolize(benchmark::State& state, bool cached) {
  ProcessMaps maps;
  if (!maps.Capture(getpid()).ok()) {
    state.SkipWithError("cannot read /proc/self/maps");
    return;
  }
  const std::vector<uint64_t> pcs = OwnCodeAddresses(maps);
  size_t frames = 0;
  Symbolizer warm(&maps);
  for (const uint64_t pc : pcs) frames += warm.FramesAt(pc).size();
  for (auto _ : state) {
    if (cached) {
      for (const uint64_t pc : pcs) benchmark::DoNotOptimize(warm.FramesAt(pc).size());
    } else {
      Symbolizer cold(&maps);
      for (const uint64_t pc : pcs) benchmark::DoNotOptimize(cold.FramesAt(pc).size());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * pcs.size()));
  state.counters["addresses"] = static_cast<double>(pcs.size());
  state.counters["frames_per_address"] =
      pcs.empty() ? 0 : static_cast<double>(frames) / static_cast<double>(pcs.size());
}

void BM_SymbolizeFirstTime(benchmark::State& state) { Symbolize(state, false); }
void BM_SymbolizeCached(benchmark::State& state) { Symbolize(state, true); }

BENCHMARK(BM_SymbolizeFirstTime)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SymbolizeCached)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace brrr::symbolize

BENCHMARK_MAIN();
