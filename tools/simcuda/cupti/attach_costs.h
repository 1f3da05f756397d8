// The simulated CUPTI's own time to attach (cuptiSubscribe) and detach (cuptiFinalize), beyond
// waiting for the device's queued work, as measured idle on real drivers (tools/gpu/README.md,
// `workloads/attach_probe.cu`): an idle cuptiSubscribe took 15.7-16.7 ms on an H200 (12.8 ms as a
// process's first on an H100), an idle cuptiFinalize 1.9-2.6 ms (H200) and 1.7-2.3 ms (H100).
//   SIMCUDA_CUPTI_SUBSCRIBE_NS=N  cuptiSubscribe takes N ns more (1 ns to 1 s; default 0)
//   SIMCUDA_CUPTI_FINALIZE_NS=N   cuptiFinalize takes N ns more (likewise)
// The calling thread sleeps that long; other threads go on launching meanwhile (whether the real
// driver holds them is not known yet: `attach_probe concurrent` asks a GPU).
//
// Must never: spend anything when the variable is unset or out of range.
#ifndef SIMCUDA_CUPTI_ATTACH_COSTS_H_
#define SIMCUDA_CUPTI_ATTACH_COSTS_H_

namespace simcuda::cupti {

void SpendSubscribeCost();
void SpendFinalizeCost();

}  // namespace simcuda::cupti

#endif  // SIMCUDA_CUPTI_ATTACH_COSTS_H_
