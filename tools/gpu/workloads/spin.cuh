// Device code that runs for a given time on the device's global timer (%globaltimer, ns): kernels
// of a known length for the CUPTI probes (cupti_cost.cu, attach_probe.cu). Must never: depend on
// the clock rate (the global timer counts nanoseconds whatever the SM clock).
#ifndef BRRR_TOOLS_GPU_WORKLOADS_SPIN_CUH_
#define BRRR_TOOLS_GPU_WORKLOADS_SPIN_CUH_

__device__ inline void SpinFor(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Runs `ns` nanoseconds.
__global__ void Spin(unsigned long long ns) { SpinFor(ns); }

#endif  // BRRR_TOOLS_GPU_WORKLOADS_SPIN_CUH_
