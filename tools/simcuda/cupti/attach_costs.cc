// See attach_costs.h.
#include "attach_costs.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>

namespace simcuda::cupti {
namespace {

// 1 ns to 1 s from the environment, else 0. Read at each call: attaches and detaches are rare.
uint64_t NsFromEnv(const char* name) {
  const char* v = std::getenv(name);
  const long long n = v != nullptr ? std::atoll(v) : 0;
  return n > 0 && n <= 1'000'000'000 ? static_cast<uint64_t>(n) : 0;
}

void SleepNs(uint64_t ns) {
  if (ns == 0) return;
  timespec left{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

}  // namespace

void SpendSubscribeCost() {
  SleepNs(NsFromEnv("SIMCUDA_CUPTI_SUBSCRIBE_NS"));
}

void SpendFinalizeCost() {
  SleepNs(NsFromEnv("SIMCUDA_CUPTI_FINALIZE_NS"));
}

}  // namespace simcuda::cupti
