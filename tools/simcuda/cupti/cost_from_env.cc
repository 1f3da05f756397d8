// See cost_from_env.h.
#include "cost_from_env.h"

#include <cstdlib>

namespace simcuda::cupti {

uint64_t CostNsFromEnv(const char* name) {
  const char* v = std::getenv(name);
  const long long n = v != nullptr ? std::atoll(v) : 0;
  return n > 0 && n <= 1'000'000'000 ? static_cast<uint64_t>(n) : 0;
}

}  // namespace simcuda::cupti
