// See trace_fold_rule.h.
#include "collector/cli/trace_fold_rule.h"

#include "collector/analysis/api_catalog.h"

namespace brrr::cli {

ingest::TraceRecorder::Fold TraceFoldRule(uint16_t host_api, const ApiActivity& record) {
  using Fold = ingest::TraceRecorder::Fold;
  if (record.driver) return Fold::kOther;
  if (ApiFromRuntimeCbid(record.cbid) == static_cast<Api>(host_api)) return Fold::kSameCall;
  if (IsLaunchConfigurationCall(false, record.cbid) &&
      CategoryOf(static_cast<Api>(host_api)) == ApiCategory::kLaunch) {
    return Fold::kPartOfCall;
  }
  return Fold::kOther;
}

}  // namespace brrr::cli
