// Thread-local external correlation stacks. Nothing here is shared between threads.
#include "external_correlation.h"

#include <vector>

namespace simcuda::cupti {
namespace {

thread_local std::vector<uint64_t> tls_stacks[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

bool IsValidKind(CUpti_ExternalCorrelationKind kind) {
  return kind > CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
         kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

}  // namespace

CUptiResult PushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  if (!IsValidKind(kind)) return CUPTI_ERROR_INVALID_PARAMETER;
  tls_stacks[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult PopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t* last_id) {
  if (!IsValidKind(kind)) return CUPTI_ERROR_INVALID_PARAMETER;
  std::vector<uint64_t>& stack = tls_stacks[kind];
  if (stack.empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  if (last_id != nullptr) *last_id = stack.back();
  stack.pop_back();
  return CUPTI_SUCCESS;
}

ExternalCorrelationTops CurrentExternalCorrelationTops() {
  ExternalCorrelationTops tops;
  for (int kind = CUPTI_EXTERNAL_CORRELATION_KIND_INVALID + 1;
       kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++kind) {
    const std::vector<uint64_t>& stack = tls_stacks[kind];
    if (stack.empty()) continue;
    tops.entries[tops.count++] = {static_cast<CUpti_ExternalCorrelationKind>(kind), stack.back()};
  }
  return tops;
}

}  // namespace simcuda::cupti
