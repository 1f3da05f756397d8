// See attach_costs.h.
#include "attach_costs.h"

#include <cerrno>
#include <cstdint>
#include <ctime>

#include "cost_from_env.h"

namespace simcuda::cupti {
namespace {

void SleepNs(uint64_t ns) {
  if (ns == 0) return;
  timespec left{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

}  // namespace

// The costs are read at each call (attaches and detaches are rare), so a test can change them.
void SpendSubscribeCost() { SleepNs(CostNsFromEnv("SIMCUDA_CUPTI_SUBSCRIBE_NS")); }

void SpendFinalizeCost() { SleepNs(CostNsFromEnv("SIMCUDA_CUPTI_FINALIZE_NS")); }

}  // namespace simcuda::cupti
