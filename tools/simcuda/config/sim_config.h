// The simulated device's settings (BRRR_SIM_* environment variables) and their parser. Pure: the
// parser takes a lookup function instead of reading the environment, so every value can be tested
// without touching the process environment. Must never print, exit or read the environment itself:
// the engine decides what to do with an error.
#ifndef BRRR_TOOLS_SIMCUDA_CONFIG_SIM_CONFIG_H_
#define BRRR_TOOLS_SIMCUDA_CONFIG_SIM_CONFIG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simcuda::config {

inline constexpr char kKernelNsVar[] = "BRRR_SIM_KERNEL_NS";
inline constexpr char kKernelsVar[] = "BRRR_SIM_KERNELS";
inline constexpr char kCopyGbpsVar[] = "BRRR_SIM_COPY_GBPS";
inline constexpr char kLaunchNsVar[] = "BRRR_SIM_LAUNCH_NS";
inline constexpr char kQueueDepthVar[] = "BRRR_SIM_QUEUE_DEPTH";
inline constexpr char kNcclGroupVar[] = "BRRR_SIM_NCCL_GROUP";
inline constexpr char kNcclSizeVar[] = "BRRR_SIM_NCCL_SIZE";
inline constexpr char kNcclRankVar[] = "BRRR_SIM_NCCL_RANK";
inline constexpr char kNcclTimeoutMsVar[] = "BRRR_SIM_NCCL_TIMEOUT_MS";
inline constexpr uint32_t kMaxNcclRanks = 64;

// One BRRR_SIM_KERNELS entry: kernel name pattern (see kernel_names.h) -> duration.
struct KernelOverride {
  std::string name;
  uint64_t duration_ns = 0;
};

struct SimConfig {
  uint64_t kernel_ns = 5000;                     // BRRR_SIM_KERNEL_NS
  std::vector<KernelOverride> kernel_overrides;  // BRRR_SIM_KERNELS, in the order given
  double copy_gbps = 20.0;                       // BRRR_SIM_COPY_GBPS (GB/s == bytes/ns)
  uint64_t launch_ns = 2000;                     // BRRR_SIM_LAUNCH_NS
  // Work a stream holds not yet complete before a new launch or copy waits for room, as a real
  // device's queue: about 1,000 kernels on an H100 (launch-to-execution latency up to 22.4 ms for
  // kernels of 20.8 us, tools/gpu/README.md, 2026-11-28). 0: no bound.
  uint64_t queue_depth = 1024;  // BRRR_SIM_QUEUE_DEPTH
  // Collectives (nccl_group.h): a group name and size make NCCL-named kernels wait for the
  // group's other processes. Both set or neither.
  std::string nccl_group;                     // BRRR_SIM_NCCL_GROUP ([A-Za-z0-9_.-], <= 64 chars)
  uint32_t nccl_size = 0;                     // BRRR_SIM_NCCL_SIZE (2..kMaxNcclRanks)
  std::optional<uint32_t> nccl_rank;          // BRRR_SIM_NCCL_RANK (< size); else claimed on join
  uint64_t nccl_timeout_ns = 60'000'000'000;  // BRRR_SIM_NCCL_TIMEOUT_MS
};

// A value or an error message naming the variable and the bad value.
template <typename T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // empty iff value is set

  bool ok() const { return value.has_value(); }
  static Parsed Ok(T v) { return Parsed{std::move(v), {}}; }
  static Parsed Error(std::string message) { return Parsed{std::nullopt, std::move(message)}; }
};

// Returns the variable's value, or nullptr when it is unset.
using EnvLookup = std::function<const char*(const char* name)>;

// Parses one variable's text. `var` names it in error messages.
Parsed<uint64_t> ParseNanoseconds(std::string_view var, std::string_view text);
Parsed<double> ParseGbps(std::string_view var, std::string_view text);
Parsed<std::vector<KernelOverride>> ParseKernelOverrides(std::string_view var,
                                                         std::string_view text);

// Reads all BRRR_SIM_* variables through `lookup`; unset variables keep their defaults. The first
// malformed variable makes the result an error.
Parsed<SimConfig> ParseSimConfig(const EnvLookup& lookup);

}  // namespace simcuda::config

#endif  // BRRR_TOOLS_SIMCUDA_CONFIG_SIM_CONFIG_H_
