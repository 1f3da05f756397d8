// The shim's hardware-counter sampler (BRRR_COUNTERS=1, `brrr run --counters`): a thread of the
// shim's own that, once the app's first CUDA call has returned (a context exists), runs CUPTI PM
// sampling on device 0 (SM and DRAM throughput and the GPU's busy share, sampled every
// kIntervalNs), decodes the hardware buffer every kDecodeMs and publishes the samples in the
// segment's counter table (ring_format.h R9). Every failure is published as a state and a CUPTI
// result for the collector to explain; the app's calls are never touched.
//
// The entry points come from libcupti at run time (dlopen + dlsym), or, for tests only, from the
// library named by BRRR_PM_SAMPLING_LIBRARY (a fake with canned behaviour).
//
// Must never: run on the app's hot path, call CUPTI after the process began to finish, block the
// app's exit for more than kStopWaitMs, or keep the process alive.
#ifndef BRRR_SHIM_PM_SAMPLER_H_
#define BRRR_SHIM_PM_SAMPLER_H_

#include "shim/ring_format.h"

namespace brrr::shim {

// Called when BRRR_COUNTERS is on: publishes kCountersWaiting and starts the sampler thread (once;
// a fork child never has it). `test_library` (BRRR_PM_SAMPLING_LIBRARY; null = libcupti) is the
// library it takes its entry points from.
void StartPmSampler(ring::SegmentHeader* header, const char* test_library);

// The app's first CUDA call returned: the sampler may enable PM sampling now.
void PmSamplerContextReady();

// Exit path (before CUPTI's teardown): asks the thread for its final decode, stop and disable,
// and waits for it at most kStopWaitMs.
void StopPmSampler();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PM_SAMPLER_H_
