// ApiStats rows and their report (see api_stats.h).
//
// Must never: create more than one row per distinct API.
#include "collector/analysis/api_stats.h"

#include <algorithm>

namespace brrr {

ApiStats::ApiStats() {
  rows_.resize(static_cast<size_t>(Api::kApiCount));
  for (size_t i = 0; i < rows_.size(); ++i) {
    rows_[i].name = std::string(ApiName(static_cast<Api>(i)));
    rows_[i].category = CategoryOf(static_cast<Api>(i));
  }
}

CallKey ApiStats::KeyForCupti(bool driver, uint32_t cbid) {
  if (!driver) {
    const Api api = ApiFromRuntimeCbid(cbid);
    if (api != Api::kUnknown) return KeyForApi(api);
  }
  const uint64_t id = (uint64_t{driver} << 32) | cbid;
  auto [it, inserted] = cupti_keys_.try_emplace(id, static_cast<CallKey>(rows_.size()));
  if (inserted) {
    Row row;
    row.name = CuptiCallName(driver, cbid);
    row.category = CuptiCallCategory(driver, cbid);
    rows_.push_back(std::move(row));
  }
  return it->second;
}

const std::string& ApiStats::Name(CallKey key) const {
  return rows_[key < rows_.size() ? key : 0].name;
}

ApiCategory ApiStats::Category(CallKey key) const {
  return rows_[key < rows_.size() ? key : 0].category;
}

std::vector<ApiStat> ApiStats::Report() const {
  std::vector<ApiStat> out;
  for (const Row& row : rows_) {
    if (row.calls == 0) continue;
    ApiStat stat;
    stat.name = row.name;
    stat.category = std::string(CategoryName(row.category));
    stat.calls = row.calls;
    stat.total_ns = row.total_ns;
    stat.p50_ns = row.histogram->Percentile(50);
    stat.p99_ns = row.histogram->Percentile(99);
    out.push_back(std::move(stat));
  }
  std::sort(out.begin(), out.end(), [](const ApiStat& a, const ApiStat& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

LogHistogram ApiStats::MergedCategory(ApiCategory category) const {
  LogHistogram merged;
  for (const Row& row : rows_) {
    if (row.category == category && row.histogram) merged.Merge(*row.histogram);
  }
  return merged;
}

}  // namespace brrr
