// A simulated CUPTI cost read from the environment (SIMCUDA_CUPTI_*_NS): the value in ns when it
// is 1 ns to 1 s, else 0 (unset, unparsable or out of range).
//
// Must never: return a cost outside [0, 1 s].
#ifndef SIMCUDA_CUPTI_COST_FROM_ENV_H_
#define SIMCUDA_CUPTI_COST_FROM_ENV_H_

#include <cstdint>

namespace simcuda::cupti {

uint64_t CostNsFromEnv(const char* name);

}  // namespace simcuda::cupti

#endif  // SIMCUDA_CUPTI_COST_FROM_ENV_H_
