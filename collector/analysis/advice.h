// Advice: what to do about where the time went, each item with the numbers behind it, ordered by
// the time it could save at most (largest first). Items:
//  - launch-bound idle (>= min_share of the steady state, or the verdict's regime): CUDA graphs /
//    torch.compile(mode="reduce-overhead"), fewer and larger ops; quotes the idle time, the launch
//    rate, median kernel vs median launch call and the top launch site. Could save: that idle time.
//  - the top host stall, when the device idled for stalls (sync drain) >= stall_min_share of the
//    steady state, whatever the regime, or the verdict is sync-bound: its API and kind, its source
//    line (the first frame that is not CUDA, runtime or framework plumbing), its calls, blocked
//    time and the device idle it cost, and the kind's remedy. Could save: the smaller of its
//    blocked time and the sync-drain idle time (a host blocked while the device is busy costs
//    nothing).
//  - input-bound idle (>= min_share, or the verdict's regime): DataLoader workers, pinned memory,
//    prefetching (C++: prepare the next input on another thread, pinned memory, cudaMemcpyAsync on
//    its own stream). Could save: that idle time.
// Each remedy is worded for the program: PyTorch's words in a Python process, CUDA C++'s
// otherwise; a no-cuda-work verdict gets no advice.
//  - device-bound (the verdict's regime only), by the device regime: bandwidth -> fusion,
//    torch.compile, 16-bit activations, with the pointwise/reduction/copy shares and the top such
//    kernels; compute -> Tensor Cores (BF16/FP16/TF32), larger matmul shapes, with the
//    matmul/convolution/attention shares and the top such kernels; mixed -> both. Could save (at
//    most): the kernel time of those classes.
//
// Must never: advise without the numbers that justify it, or state a number it was not given.
#ifndef BRRR_COLLECTOR_ANALYSIS_ADVICE_H_
#define BRRR_COLLECTOR_ANALYSIS_ADVICE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collector/analysis/regime.h"
#include "collector/analysis/stall_classifier.h"
#include "viewer/format/report.h"

namespace brrr {

struct AdviceInputs {
  Regime regime = Regime::kNoCudaWork;        // the verdict's
  // The process runs Python: remedies in PyTorch's words (DataLoader, .item(), torch.compile);
  // else in CUDA C++'s (pinned memory and cudaMemcpyAsync with an event, CUDA graphs, streams).
  bool python = true;
  std::optional<DeviceRegime> device_regime;  // when device-bound
  bool host_only = false;                     // idle figures are the host's view
  int64_t steady_ns = 0;                      // wall minus start-up and teardown (summed)
  int64_t launch_idle_ns = 0;
  int64_t sync_idle_ns = 0;
  int64_t outside_idle_ns = 0;
  uint64_t kernel_launches = 0;
  int64_t median_kernel_ns = 0;
  int64_t median_launch_call_ns = 0;
  std::optional<LaunchSite> top_launch_site;
  std::optional<Stall> top_stall;
  std::vector<KernelClassStat> classes;
  std::vector<KernelStat> top_kernels;  // with their classes
  double min_share = 0.05;
  double stall_min_share = 0.01;
};

struct AdviceItem {
  int64_t saving_ns = 0;
  std::string text;
};

// The items, largest saving first (ties keep the order of the list above).
std::vector<AdviceItem> AdviceItems(const AdviceInputs& in);
std::vector<std::string> Advise(const AdviceInputs& in);

// The frame of a stack (innermost first) a person would edit: the first Python frame outside
// site-packages and torch, else the first Python frame, else the first native frame outside CUDA,
// runtime, framework, libc and interpreter libraries and outside nvcc's launch code (the
// __device_stub__ and the kernel-named host wrapper it is called from), else the first frame; ""
// for no frames.
std::string SourceFrame(const std::vector<std::string>& stack);

// What to do about a stall kind, in PyTorch's words or CUDA C++'s; "" for kNone.
std::string StallRemedy(StallReason reason, bool python);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_ADVICE_H_
