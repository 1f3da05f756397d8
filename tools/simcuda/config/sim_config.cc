// Parser for the BRRR_SIM_* variables. Must never read the environment, print or exit: errors are
// returned as text naming the variable and the offending value.
#include "sim_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace simcuda::config {
namespace {

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside <...> or (...), so that template arguments such as
// "foo<int, 2>" stay in one entry.
std::vector<std::string_view> SplitTopLevelCommas(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(text.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  parts.push_back(text.substr(begin));
  return parts;
}

}  // namespace

Parsed<uint64_t> ParseNanoseconds(std::string_view var, std::string_view text) {
  const auto bad = [&] {
    return Parsed<uint64_t>::Error(std::string(var) + ": " + Quote(text) +
                                   " is not a non-negative integer number of nanoseconds");
  };
  if (text.empty() || text.front() < '0' || text.front() > '9') return bad();
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return Parsed<uint64_t>::Error(std::string(var) + ": " + Quote(text) +
                                   " is too large (at most 18446744073709551615 ns)");
  }
  if (ec != std::errc() || end != text.data() + text.size()) return bad();
  return Parsed<uint64_t>::Ok(value);
}

Parsed<double> ParseGbps(std::string_view var, std::string_view text) {
  const auto bad = [&] {
    return Parsed<double>::Error(std::string(var) + ": " + Quote(text) +
                                 " is not a positive number of GB/s");
  };
  // from_chars accepts "inf"/"nan"; insist on a plain decimal number.
  if (text.empty() || !((text.front() >= '0' && text.front() <= '9') || text.front() == '.')) {
    return bad();
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return bad();
  if (!std::isfinite(value) || !(value > 0)) return bad();
  return Parsed<double>::Ok(value);
}

Parsed<std::vector<KernelOverride>> ParseKernelOverrides(std::string_view var,
                                                         std::string_view text) {
  using Result = Parsed<std::vector<KernelOverride>>;
  const std::string prefix = std::string(var) + ": ";
  if (Trim(text).empty()) {
    return Result::Error(prefix + Quote(text) + " is empty; expected name=ns[,name=ns...]");
  }
  std::vector<KernelOverride> overrides;
  std::set<std::string, std::less<>> seen;
  for (std::string_view entry : SplitTopLevelCommas(text)) {
    if (Trim(entry).empty()) {
      return Result::Error(prefix + "empty entry in " + Quote(text) +
                           "; expected name=ns[,name=ns...]");
    }
    const size_t eq = entry.rfind('=');
    if (eq == std::string_view::npos) {
      return Result::Error(prefix + "entry " + Quote(entry) + " has no '='; expected name=ns");
    }
    const std::string_view name = Trim(entry.substr(0, eq));
    if (name.empty()) {
      return Result::Error(prefix + "entry " + Quote(entry) + " has an empty kernel name");
    }
    const Parsed<uint64_t> ns =
        ParseNanoseconds(std::string(var) + " (" + std::string(name) + ")", entry.substr(eq + 1));
    if (!ns.ok()) return Result::Error(ns.error);
    if (!seen.insert(std::string(name)).second) {
      return Result::Error(prefix + "kernel " + Quote(name) + " is given more than once");
    }
    overrides.push_back(KernelOverride{std::string(name), *ns.value});
  }
  return Result::Ok(std::move(overrides));
}

namespace {

// The BRRR_SIM_NCCL_* variables into `config`; an error message, or "" when they are fine.
std::string ParseNcclSettings(const EnvLookup& lookup, SimConfig* config) {
  const char* group = lookup(kNcclGroupVar);
  const char* size = lookup(kNcclSizeVar);
  if ((group == nullptr) != (size == nullptr)) {
    return std::string(group == nullptr ? kNcclSizeVar : kNcclGroupVar) + " is set but " +
           (group == nullptr ? kNcclGroupVar : kNcclSizeVar) +
           " is not: a collective group needs both its name and its size";
  }
  if (group == nullptr) return "";
  const std::string_view name(group);
  const bool name_ok =
      !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == '-';
      });
  if (!name_ok) {
    return std::string(kNcclGroupVar) + ": " + Quote(name) +
           " is not a group name (1 to 64 of A-Z a-z 0-9 _ . -)";
  }
  const Parsed<uint64_t> n = ParseNanoseconds(kNcclSizeVar, size);
  if (!n.ok() || *n.value < 2 || *n.value > kMaxNcclRanks) {
    return std::string(kNcclSizeVar) + ": " + Quote(size) + " is not a group size (2 to " +
           std::to_string(kMaxNcclRanks) + ")";
  }
  config->nccl_group = std::string(name);
  config->nccl_size = static_cast<uint32_t>(*n.value);
  if (const char* rank = lookup(kNcclRankVar)) {
    const Parsed<uint64_t> r = ParseNanoseconds(kNcclRankVar, rank);
    if (!r.ok() || *r.value >= config->nccl_size) {
      return std::string(kNcclRankVar) + ": " + Quote(rank) + " is not a rank of a group of " +
             std::to_string(config->nccl_size);
    }
    config->nccl_rank = static_cast<uint32_t>(*r.value);
  }
  if (const char* ms = lookup(kNcclTimeoutMsVar)) {
    const Parsed<uint64_t> t = ParseNanoseconds(kNcclTimeoutMsVar, ms);
    if (!t.ok() || *t.value == 0 || *t.value > 86'400'000) {
      return std::string(kNcclTimeoutMsVar) + ": " + Quote(ms) +
             " is not a timeout in milliseconds (1 to 86400000)";
    }
    config->nccl_timeout_ns = *t.value * 1'000'000;
  }
  return "";
}

}  // namespace

Parsed<SimConfig> ParseSimConfig(const EnvLookup& lookup) {
  SimConfig config;
  if (const char* text = lookup(kKernelNsVar)) {
    const auto parsed = ParseNanoseconds(kKernelNsVar, text);
    if (!parsed.ok()) return Parsed<SimConfig>::Error(parsed.error);
    config.kernel_ns = *parsed.value;
  }
  if (const char* text = lookup(kKernelsVar)) {
    auto parsed = ParseKernelOverrides(kKernelsVar, text);
    if (!parsed.ok()) return Parsed<SimConfig>::Error(parsed.error);
    config.kernel_overrides = std::move(*parsed.value);
  }
  if (const char* text = lookup(kCopyGbpsVar)) {
    const auto parsed = ParseGbps(kCopyGbpsVar, text);
    if (!parsed.ok()) return Parsed<SimConfig>::Error(parsed.error);
    config.copy_gbps = *parsed.value;
  }
  if (const char* text = lookup(kLaunchNsVar)) {
    const auto parsed = ParseNanoseconds(kLaunchNsVar, text);
    if (!parsed.ok()) return Parsed<SimConfig>::Error(parsed.error);
    config.launch_ns = *parsed.value;
  }
  if (const char* text = lookup(kQueueDepthVar)) {
    const auto parsed = ParseNanoseconds(kQueueDepthVar, text);  // an unsigned count, the same form
    if (!parsed.ok()) return Parsed<SimConfig>::Error(parsed.error);
    config.queue_depth = *parsed.value;
  }
  if (auto error = ParseNcclSettings(lookup, &config); !error.empty()) {
    return Parsed<SimConfig>::Error(std::move(error));
  }
  return Parsed<SimConfig>::Ok(std::move(config));
}

}  // namespace simcuda::config
