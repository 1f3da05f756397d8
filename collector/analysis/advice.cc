// Advise and its pieces (see advice.h).
//
// Must never: divide by a zero steady-state time, or quote a frame that is not in the stack.
#include "collector/analysis/advice.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "collector/analysis/device_regime.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

constexpr size_t kTopKernelsQuoted = 2;
constexpr size_t kKernelNameChars = 60;

// The "(...)" at the end of a frame: its module or file:line.
absl::string_view Where(absl::string_view frame) {
  if (frame.empty() || frame.back() != ')') return {};
  const size_t open = frame.rfind('(');
  return open == absl::string_view::npos ? absl::string_view{}
                                         : frame.substr(open + 1, frame.size() - open - 2);
}

bool IsPythonFrame(absl::string_view frame) { return absl::StrContains(Where(frame), ".py:"); }

bool IsLibraryPython(absl::string_view frame) {
  const absl::string_view where = Where(frame);
  return absl::StrContains(where, "site-packages/") || absl::StrContains(where, "dist-packages/") ||
         absl::StrContains(where, "/torch/") || absl::StartsWith(where, "torch/");
}

// CUDA, runtime, framework, C library and interpreter modules: what a user does not edit.
bool IsPlumbing(absl::string_view frame) {
  const absl::string_view where = Where(frame);
  static constexpr absl::string_view kModules[] = {
      "libcuda",  "libcudart", "libcupti", "libnvrtc",  "libcublas", "libcudnn",
      "libnccl",  "libbrrr",   "libtorch", "libc10",    "libc.so",   "libpthread",
      "ld-linux", "libstdc++", "libgcc",   "libpython", "python3",   "_C.cpython",
      "libdl",    "libm.so",   "[vdso]",   "simcuda",
  };
  for (absl::string_view m : kModules) {
    if (absl::StrContains(where, m)) return true;
  }
  const absl::string_view function = frame.substr(0, frame.size() - where.size());
  const bool cu_upper = function.size() > 2 && function[0] == 'c' && function[1] == 'u' &&
                        function[2] >= 'A' && function[2] <= 'Z';  // cuMemcpyDtoH_v2, ...
  return absl::StartsWith(function, "cuda") || absl::StartsWith(function, "__cuda") || cu_upper ||
         absl::StartsWith(function, "<unknown");
}

// A kernel's name short enough to quote: no return type, no parameters, templates elided when long.
std::string ShortKernelName(absl::string_view name) {
  if (absl::StartsWith(name, "void ")) name.remove_prefix(5);
  std::string out(name);
  int depth = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '<') ++depth;
    if (out[i] == '>' && depth > 0) --depth;
    if (out[i] == '(' && depth == 0 && !absl::StartsWith(out.substr(i), "(anonymous")) {
      out.resize(i);
      break;
    }
  }
  if (out.size() > kKernelNameChars) {
    const size_t angle = out.find('<');
    if (angle != std::string::npos && angle < kKernelNameChars) {
      out = out.substr(0, angle) + "<...>";
    } else {
      out = out.substr(0, kKernelNameChars) + "...";
    }
  }
  return out;
}

std::string Share(int64_t part, int64_t whole) { return FormatPercent(part, whole); }

std::string TopKernelsOf(const AdviceInputs& in, bool compute_side, int64_t kernel_ns) {
  std::vector<std::string> quoted;
  for (const KernelStat& k : in.top_kernels) {
    if (quoted.size() >= kTopKernelsQuoted) break;
    const ClassShares one = SharesOf({{k.kernel_class, k.launches, k.device_ns}});
    if ((compute_side ? one.compute_ns : one.bandwidth_ns) <= 0) continue;
    quoted.push_back(absl::StrCat(ShortKernelName(k.name), " ", Share(k.device_ns, kernel_ns), " (",
                                  k.kernel_class, ")"));
  }
  return quoted.empty() ? "" : absl::StrCat("; top: ", absl::StrJoin(quoted, ", "));
}

std::string ClassList(const ClassShares& s, std::initializer_list<const char*> names) {
  std::vector<std::string> items;
  for (const char* name : names) {
    const int64_t ns = s.ns_of(name);
    if (ns > 0) items.push_back(absl::StrCat(name, " ", Share(ns, s.total_ns)));
  }
  return absl::StrJoin(items, ", ");
}

std::string IdleClause(int64_t idle_ns, int64_t steady_ns, bool host_only, const char* while_) {
  return absl::StrCat(host_only ? "the host spent " : "the device idled ", FormatDuration(idle_ns),
                      " (", Share(idle_ns, steady_ns), " of the steady state) ", while_);
}

}  // namespace

std::string SourceFrame(const std::vector<std::string>& stack) {
  for (const std::string& f : stack) {
    if (IsPythonFrame(f) && !IsLibraryPython(f)) return f;
  }
  for (const std::string& f : stack) {
    if (IsPythonFrame(f)) return f;
  }
  for (size_t i = 0; i < stack.size(); ++i) {
    // nvcc's launch code: `kernel<<<>>>` calls a host wrapper named as the kernel (at the kernel's
    // definition), which calls __device_stub__<kernel>, which calls __cudaLaunchKernel_helper.
    // Past the stub, the next frame is that wrapper: the user's line is the one after it.
    if (absl::StartsWith(stack[i], "__device_stub__")) {
      ++i;
      continue;
    }
    if (!IsPlumbing(stack[i])) return stack[i];
  }
  return stack.empty() ? "" : stack.front();
}

std::string StallRemedy(StallReason reason, bool python) {
  switch (reason) {
    case StallReason::kD2hCopy:
      return python ? "keep the value on the device (no .item(), .cpu(), .tolist() or print(tensor) "
                      "in the loop) or read it every N steps"
                    : "read results back less often (every N steps), or with cudaMemcpyAsync into "
                      "pinned memory and an event waited on only where the value is needed";
    case StallReason::kSyncCopy:
      return python ? "make the copy asynchronous (non_blocking=True from pinned memory) or move "
                      "it out of the loop"
                    : "make the copy asynchronous (cudaMemcpyAsync from pinned memory on a "
                      "stream) or move it out of the loop";
    case StallReason::kPageableAsyncCopy:
    case StallReason::kAsyncCopyBlocked:
      return python ? "use pinned host memory (pin_memory=True in the DataLoader, "
                      "tensor.pin_memory()) so the copy is truly asynchronous"
                    : "use pinned host memory (cudaMallocHost, or cudaHostRegister on the existing "
                      "buffer) so the copy is truly asynchronous";
    case StallReason::kSyncMemset:
      return python ? "use the tensor's in-place ops (zero_(), fill_()) on the device instead of a "
                      "synchronous memset"
                    : "use cudaMemsetAsync";
    case StallReason::kFreeSyncsDevice:
      return python ? "let PyTorch's caching allocator keep the memory (no "
                      "torch.cuda.empty_cache() in the loop) and reuse tensors"
                    : "reuse buffers or a stream-ordered allocator (cudaMallocAsync/cudaFreeAsync, "
                      "a memory pool) instead of cudaFree in the loop";
    case StallReason::kStreamSync:
    case StallReason::kDeviceSync:
    case StallReason::kEventSync:
      return python ? "synchronize only where the host needs a result (no "
                      "torch.cuda.synchronize() in the loop; events and stream waits instead)"
                    : "synchronize only where the host needs a result: record events and let "
                      "streams wait on them (cudaStreamWaitEvent) instead of blocking the host";
    case StallReason::kQueryPoll:
      return python ? "wait on an event (event.synchronize(), or stream.wait_event on the device) "
                      "instead of polling query()"
                    : "wait on an event (cudaEventSynchronize, or cudaStreamWaitEvent on the "
                      "device) instead of polling cudaStreamQuery/cudaEventQuery";
    case StallReason::kNone:
    case StallReason::kCount:
      break;
  }
  return "";
}

std::vector<AdviceItem> AdviceItems(const AdviceInputs& in) {
  std::vector<AdviceItem> items;
  const int64_t steady = in.steady_ns;
  const auto at_least = [&](int64_t ns, double share) {
    return steady > 0 && ns > 0 && static_cast<double>(ns) >= share * static_cast<double>(steady);
  };

  if (in.regime == Regime::kNoCudaWork) return items;
  if (in.regime == Regime::kLaunchBound || at_least(in.launch_idle_ns, in.min_share)) {
    std::string text = absl::StrCat(
        in.python ? "launch-bound: capture the loop in a CUDA graph "
                    "(torch.compile(mode=\"reduce-overhead\"), torch.cuda.graphs) and use fewer, "
                    "larger ops (fuse small kernels): "
                  : "launch-bound: capture the loop in a CUDA graph (cudaStreamBeginCapture, then "
                    "cudaGraphLaunch each step) and launch fewer, larger kernels (fuse small "
                    "ones): ",
        IdleClause(in.launch_idle_ns, steady, in.host_only,
                   in.host_only ? "in or between CUDA calls" : "while the host launched"));
    if (in.kernel_launches > 0 && steady > 0) {
      const double rate =
          static_cast<double>(in.kernel_launches) * 1e9 / static_cast<double>(steady);
      absl::StrAppend(&text, "; ", FormatCount(in.kernel_launches), " launches, ",
                      FormatCount(static_cast<uint64_t>(rate + 0.5)), "/s");
    }
    if (in.median_launch_call_ns > 0) {  // without a kernel record a kernel's length is unknown
      absl::StrAppend(
          &text, "; ",
          in.kernel_launches > 0
              ? absl::StrCat("median kernel ", FormatDuration(in.median_kernel_ns), " vs ")
              : std::string(),
          "median launch call ", FormatDuration(in.median_launch_call_ns));
    }
    if (in.top_launch_site.has_value() && !in.top_launch_site->stack.empty()) {
      absl::StrAppend(&text, "; top launch site ", SourceFrame(in.top_launch_site->stack), " (~",
                      FormatCount(in.top_launch_site->launches), " launches)");
    }
    items.push_back({in.launch_idle_ns, std::move(text)});
  }

  // A stall costs what the device idled because of it: at most its blocked time, and at most
  // the sync-drain idle time of the run (a host blocked while the device is busy costs nothing).
  const int64_t stall_cost =
      in.top_stall.has_value() ? std::min(in.top_stall->total_ns, in.sync_idle_ns) : 0;
  if (in.top_stall.has_value() &&
      (in.regime == Regime::kSyncBound || at_least(stall_cost, in.stall_min_share))) {
    const Stall& s = *in.top_stall;
    std::string text = absl::StrCat("host stall: ", s.api, " (", s.reason, ")");
    const std::string frame = SourceFrame(s.stack);
    if (!frame.empty()) absl::StrAppend(&text, " at ", frame);
    absl::StrAppend(&text, ", ", FormatCount(s.calls), " calls, ", FormatDuration(s.total_ns),
                    " blocked; ",
                    IdleClause(in.sync_idle_ns, steady, in.host_only,
                               "while the host was blocked in synchronizations"));
    const std::string remedy = StallRemedy(StallReasonFromName(s.reason), in.python);
    if (!remedy.empty()) absl::StrAppend(&text, ": ", remedy);
    items.push_back({stall_cost, std::move(text)});
  } else if (in.regime == Regime::kSyncBound) {
    items.push_back(
        {in.sync_idle_ns,
         absl::StrCat("sync-bound: synchronize only where the host needs a result (events instead "
                      "of blocking calls): ",
                      IdleClause(in.sync_idle_ns, steady, in.host_only,
                                 "while the host was blocked in synchronizations"))});
  }

  if (in.regime == Regime::kInputBound || at_least(in.outside_idle_ns, in.min_share)) {
    items.push_back(
        {in.outside_idle_ns,
         absl::StrCat(in.python
                          ? "input-bound: more DataLoader workers (num_workers), pinned memory "
                            "(pin_memory=True) and prefetching (prefetch_factor, non_blocking "
                            "copies) so the next batch is ready: "
                          : "input-bound: prepare the next input on another thread while the "
                            "device works, from pinned memory (cudaMallocHost) with "
                            "cudaMemcpyAsync on a stream of its own, so it is ready in time: ",
                      IdleClause(in.outside_idle_ns, steady, in.host_only,
                                 "while the host was outside CUDA"))});
  }

  if (in.regime == Regime::kDeviceBound && in.device_regime.has_value()) {
    const ClassShares s = SharesOf(in.classes);
    const size_t before = items.size();
    const std::string& dr = in.device_regime->regime;
    if ((dr == "bandwidth" || dr == "mixed") && s.bandwidth_ns > 0) {
      items.push_back(
          {s.bandwidth_ns,
           absl::StrCat(in.python ? "bandwidth-bound kernels: fuse them (torch.compile), cut "
                                    "memory traffic with 16-bit activations (bf16/fp16 autocast) "
                                    "and fewer copies: "
                                  : "bandwidth-bound kernels: fuse them (fewer passes over "
                                    "memory), cut memory traffic with 16-bit data (__half, "
                                    "__nv_bfloat16) and fewer copies: ",
                        ClassList(s, {"pointwise", "reduction", "copy"}), " of kernel time (",
                        FormatDuration(s.bandwidth_ns), ")", TopKernelsOf(in, false, s.total_ns))});
    }
    if ((dr == "compute" || dr == "mixed") && s.compute_ns > 0) {
      items.push_back(
          {s.compute_ns,
           absl::StrCat(in.python ? "compute-bound kernels: use Tensor Cores with BF16/FP16 "
                                    "(autocast) or TF32 "
                                    "(torch.set_float32_matmul_precision(\"high\")) and larger "
                                    "matmul shapes (bigger batches, dimensions multiple of 16): "
                                  : "compute-bound kernels: use Tensor Cores with BF16/FP16 or "
                                    "TF32 (cuBLAS CUBLAS_TF32_TENSOR_OP_MATH, cublasGemmEx with a "
                                    "16-bit type, WMMA/CUTLASS) and larger matmul shapes "
                                    "(dimensions multiple of 16): ",
                        ClassList(s, {"matmul", "convolution", "attention"}), " of kernel time (",
                        FormatDuration(s.compute_ns), ")", TopKernelsOf(in, true, s.total_ns))});
    }
    if (items.size() == before) {
      std::string text =
          "device-bound in kernels whose names say neither compute nor bandwidth: profile the top "
          "kernels with Nsight Compute, or run with --counters where the GPU allows";
      if (!in.top_kernels.empty()) {
        const KernelStat& k = in.top_kernels.front();
        absl::StrAppend(&text, "; top: ", ShortKernelName(k.name), " ",
                        Share(k.device_ns, s.total_ns), " of kernel time (",
                        FormatDuration(k.device_ns), ")");
      }
      items.push_back({s.total_ns - s.compute_ns - s.bandwidth_ns, std::move(text)});
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const AdviceItem& a, const AdviceItem& b) {
    return a.saving_ns > b.saving_ns;
  });
  return items;
}

std::vector<std::string> Advise(const AdviceInputs& in) {
  std::vector<std::string> out;
  for (AdviceItem& item : AdviceItems(in)) out.push_back(std::move(item.text));
  return out;
}

}  // namespace brrr
