// Per-API call statistics: calls, host time inside the call, p50/p99. One slot per hooked Api and
// one per distinct CUPTI-only call (by callback id); a CUPTI runtime call that is a hooked Api
// shares that Api's slot, so "cudaMemcpy" is one row however it was seen.
//
// Memory: one fixed-size histogram per API that was called (bounded by the number of distinct
// APIs). Not thread-safe. Must never: allocate per call after an API's first call.
#ifndef BRRR_COLLECTOR_ANALYSIS_API_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_API_STATS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/api_catalog.h"
#include "collector/analysis/log_histogram.h"
#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

// Identifies an API row: values below kApiCount are ring::Api values, the rest CUPTI-only calls.
using CallKey = uint32_t;

class ApiStats {
 public:
  ApiStats();

  static CallKey KeyForApi(Api api) {
    const auto v = static_cast<uint32_t>(api);
    return v < static_cast<uint32_t>(Api::kApiCount) ? v : 0;
  }
  CallKey KeyForCupti(bool driver, uint32_t cbid);

  void Add(CallKey key, int64_t duration_ns) {
    Row& row = rows_[key < rows_.size() ? key : 0];
    if (!row.histogram) row.histogram = std::make_unique<LogHistogram>();
    ++row.calls;
    row.total_ns += duration_ns;
    row.histogram->Add(duration_ns);
  }

  const std::string& Name(CallKey key) const;
  ApiCategory Category(CallKey key) const;

  // Rows with at least one call, by total_ns descending (ties by name).
  std::vector<ApiStat> Report() const;
  // All calls of one category merged (e.g. launch calls, for the verdict).
  LogHistogram MergedCategory(ApiCategory category) const;

 private:
  struct Row {
    std::string name;
    ApiCategory category = ApiCategory::kOther;
    uint64_t calls = 0;
    int64_t total_ns = 0;
    std::unique_ptr<LogHistogram> histogram;

    Row() = default;
    Row(Row&&) = default;
    Row& operator=(Row&&) = default;
    // Deep copies (a snapshot of the analysis copies its statistics).
    Row(const Row& o)
        : name(o.name),
          category(o.category),
          calls(o.calls),
          total_ns(o.total_ns),
          histogram(o.histogram ? std::make_unique<LogHistogram>(*o.histogram) : nullptr) {}
    Row& operator=(const Row& o) {
      if (this != &o) *this = Row(o);
      return *this;
    }
  };
  std::vector<Row> rows_;
  absl::flat_hash_map<uint64_t, CallKey> cupti_keys_;  // (driver << 32 | cbid) -> key
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_API_STATS_H_
