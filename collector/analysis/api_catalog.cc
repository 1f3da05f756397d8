// Tables behind api_catalog.h. The hooked-Api table is written by hand (it follows ring::Api); the
// CUPTI callback-id names come from cupti_cbid_names.inc, generated from the CUPTI headers.
//
// Must never: index a table without a bounds check (ids come from untrusted records).
#include "collector/analysis/api_catalog.h"

#include <array>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace brrr {
namespace {

struct ApiInfo {
  Api api;
  std::string_view name;
  ApiCategory category;
};

using C = ApiCategory;
constexpr ApiInfo kApis[] = {
    {Api::kCudaLaunchKernelInternal, "__cudaLaunchKernel", C::kLaunch},
    {Api::kCudaLaunchKernelInternalPtsz, "__cudaLaunchKernel_ptsz", C::kLaunch},
    {Api::kCudaLaunchKernel, "cudaLaunchKernel", C::kLaunch},
    {Api::kCudaLaunchKernelPtsz, "cudaLaunchKernel_ptsz", C::kLaunch},
    {Api::kCudaLaunchKernelExC, "cudaLaunchKernelExC", C::kLaunch},
    {Api::kCudaLaunchKernelExCPtsz, "cudaLaunchKernelExC_ptsz", C::kLaunch},
    {Api::kCudaLaunchCooperativeKernel, "cudaLaunchCooperativeKernel", C::kLaunch},
    {Api::kCudaLaunchCooperativeKernelPtsz, "cudaLaunchCooperativeKernel_ptsz", C::kLaunch},
    {Api::kCudaGraphLaunch, "cudaGraphLaunch", C::kLaunch},
    {Api::kCudaGraphLaunchPtsz, "cudaGraphLaunch_ptsz", C::kLaunch},
    {Api::kCudaMemcpy, "cudaMemcpy", C::kCopy},
    {Api::kCudaMemcpyPtds, "cudaMemcpy_ptds", C::kCopy},
    {Api::kCudaMemcpyAsync, "cudaMemcpyAsync", C::kCopy},
    {Api::kCudaMemcpyAsyncPtsz, "cudaMemcpyAsync_ptsz", C::kCopy},
    {Api::kCudaMemcpy2D, "cudaMemcpy2D", C::kCopy},
    {Api::kCudaMemcpy2DPtds, "cudaMemcpy2D_ptds", C::kCopy},
    {Api::kCudaMemcpy2DAsync, "cudaMemcpy2DAsync", C::kCopy},
    {Api::kCudaMemcpy2DAsyncPtsz, "cudaMemcpy2DAsync_ptsz", C::kCopy},
    {Api::kCudaMemcpy3D, "cudaMemcpy3D", C::kCopy},
    {Api::kCudaMemcpy3DPtds, "cudaMemcpy3D_ptds", C::kCopy},
    {Api::kCudaMemcpy3DAsync, "cudaMemcpy3DAsync", C::kCopy},
    {Api::kCudaMemcpy3DAsyncPtsz, "cudaMemcpy3DAsync_ptsz", C::kCopy},
    {Api::kCudaMemcpyPeer, "cudaMemcpyPeer", C::kCopy},
    {Api::kCudaMemcpyPeerAsync, "cudaMemcpyPeerAsync", C::kCopy},
    {Api::kCudaMemcpyToSymbol, "cudaMemcpyToSymbol", C::kCopy},
    {Api::kCudaMemcpyToSymbolPtds, "cudaMemcpyToSymbol_ptds", C::kCopy},
    {Api::kCudaMemcpyFromSymbol, "cudaMemcpyFromSymbol", C::kCopy},
    {Api::kCudaMemcpyFromSymbolPtds, "cudaMemcpyFromSymbol_ptds", C::kCopy},
    {Api::kCudaMemcpyToSymbolAsync, "cudaMemcpyToSymbolAsync", C::kCopy},
    {Api::kCudaMemcpyToSymbolAsyncPtsz, "cudaMemcpyToSymbolAsync_ptsz", C::kCopy},
    {Api::kCudaMemcpyFromSymbolAsync, "cudaMemcpyFromSymbolAsync", C::kCopy},
    {Api::kCudaMemcpyFromSymbolAsyncPtsz, "cudaMemcpyFromSymbolAsync_ptsz", C::kCopy},
    {Api::kCudaMemset, "cudaMemset", C::kMemset},
    {Api::kCudaMemsetPtds, "cudaMemset_ptds", C::kMemset},
    {Api::kCudaMemsetAsync, "cudaMemsetAsync", C::kMemset},
    {Api::kCudaMemsetAsyncPtsz, "cudaMemsetAsync_ptsz", C::kMemset},
    {Api::kCudaMemset2D, "cudaMemset2D", C::kMemset},
    {Api::kCudaMemset2DAsync, "cudaMemset2DAsync", C::kMemset},
    {Api::kCudaMemset3D, "cudaMemset3D", C::kMemset},
    {Api::kCudaMemset3DAsync, "cudaMemset3DAsync", C::kMemset},
    {Api::kCudaMalloc, "cudaMalloc", C::kAlloc},
    {Api::kCudaMallocHost, "cudaMallocHost", C::kAlloc},
    {Api::kCudaHostAlloc, "cudaHostAlloc", C::kAlloc},
    {Api::kCudaMallocManaged, "cudaMallocManaged", C::kAlloc},
    {Api::kCudaMallocPitch, "cudaMallocPitch", C::kAlloc},
    {Api::kCudaMallocAsync, "cudaMallocAsync", C::kAlloc},
    {Api::kCudaMallocAsyncPtsz, "cudaMallocAsync_ptsz", C::kAlloc},
    {Api::kCudaHostRegister, "cudaHostRegister", C::kAlloc},
    {Api::kCudaFree, "cudaFree", C::kFree},
    {Api::kCudaFreeHost, "cudaFreeHost", C::kFree},
    {Api::kCudaFreeAsync, "cudaFreeAsync", C::kFree},
    {Api::kCudaFreeAsyncPtsz, "cudaFreeAsync_ptsz", C::kFree},
    {Api::kCudaHostUnregister, "cudaHostUnregister", C::kFree},
    {Api::kCudaStreamSynchronize, "cudaStreamSynchronize", C::kSync},
    {Api::kCudaStreamSynchronizePtsz, "cudaStreamSynchronize_ptsz", C::kSync},
    {Api::kCudaDeviceSynchronize, "cudaDeviceSynchronize", C::kSync},
    {Api::kCudaEventSynchronize, "cudaEventSynchronize", C::kSync},
    {Api::kCudaStreamWaitEvent, "cudaStreamWaitEvent", C::kSync},
    {Api::kCudaStreamWaitEventPtsz, "cudaStreamWaitEvent_ptsz", C::kSync},
    {Api::kCudaStreamQuery, "cudaStreamQuery", C::kQuery},
    {Api::kCudaStreamQueryPtsz, "cudaStreamQuery_ptsz", C::kQuery},
    {Api::kCudaEventQuery, "cudaEventQuery", C::kQuery},
    {Api::kCudaEventRecord, "cudaEventRecord", C::kOther},
    {Api::kCudaEventRecordPtsz, "cudaEventRecord_ptsz", C::kOther},
    {Api::kCudaEventRecordWithFlags, "cudaEventRecordWithFlags", C::kOther},
    {Api::kCudaEventRecordWithFlagsPtsz, "cudaEventRecordWithFlags_ptsz", C::kOther},
    {Api::kCudaProfilerStart, "cudaProfilerStart", C::kOther},
    {Api::kCudaProfilerStop, "cudaProfilerStop", C::kOther},
};

constexpr size_t kApiSlots = static_cast<size_t>(Api::kApiCount);

struct ApiTable {
  std::array<std::string_view, kApiSlots> names{};
  std::array<ApiCategory, kApiSlots> categories{};
  constexpr ApiTable() {
    for (size_t i = 0; i < kApiSlots; ++i) {
      names[i] = "unknown";
      categories[i] = ApiCategory::kOther;
    }
    for (const ApiInfo& info : kApis) {
      names[static_cast<size_t>(info.api)] = info.name;
      categories[static_cast<size_t>(info.api)] = info.category;
    }
  }
};
constexpr ApiTable kApiTable;

struct CbidName {
  uint32_t cbid;
  std::string_view name;
};
constexpr CbidName kRuntimeCbids[] = {
#define BRRR_RUNTIME_CBID(id, name) {id, name},
#include "collector/analysis/cupti_cbid_names.inc"
#undef BRRR_RUNTIME_CBID
};
constexpr CbidName kDriverCbids[] = {
#define BRRR_DRIVER_CBID(id, name) {id, name},
#include "collector/analysis/cupti_cbid_names.inc"
#undef BRRR_DRIVER_CBID
};

// Direct-indexed name tables (cbids are small dense integers).
template <size_t N>
class CbidIndex {
 public:
  explicit CbidIndex(const CbidName (&rows)[N]) {
    uint32_t max_id = 0;
    for (const CbidName& row : rows) max_id = std::max(max_id, row.cbid);
    names_.resize(max_id + 1);
    for (const CbidName& row : rows) names_[row.cbid] = row.name;
  }
  std::string_view Find(uint32_t cbid) const {
    return cbid < names_.size() ? names_[cbid] : std::string_view();
  }
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string_view> names_;
};

const CbidIndex<std::size(kRuntimeCbids)>& RuntimeIndex() {
  static const auto* index = new CbidIndex<std::size(kRuntimeCbids)>(kRuntimeCbids);
  return *index;
}
const CbidIndex<std::size(kDriverCbids)>& DriverIndex() {
  static const auto* index = new CbidIndex<std::size(kDriverCbids)>(kDriverCbids);
  return *index;
}

// Runtime cbid -> hooked Api, built once by matching names.
const std::vector<Api>& RuntimeCbidToApi() {
  static const auto* table = [] {
    absl::flat_hash_map<std::string_view, Api> by_name;
    for (const ApiInfo& info : kApis) by_name.emplace(info.name, info.api);
    auto* out = new std::vector<Api>(RuntimeIndex().size(), Api::kUnknown);
    for (uint32_t cbid = 0; cbid < out->size(); ++cbid) {
      auto it = by_name.find(RuntimeIndex().Find(cbid));
      if (it != by_name.end()) (*out)[cbid] = it->second;
    }
    return out;
  }();
  return *table;
}

struct CuptiCallTraits {
  std::vector<ApiCategory> category;
  std::vector<bool> launch_many;
  std::vector<bool> launch_configuration;  // __cuda{Push,Pop}CallConfiguration
};

CuptiCallTraits BuildTraits(bool driver) {
  CuptiCallTraits traits;
  const size_t n = driver ? DriverIndex().size() : RuntimeIndex().size();
  traits.category.resize(n, ApiCategory::kOther);
  traits.launch_many.resize(n, false);
  traits.launch_configuration.resize(n, false);
  for (uint32_t cbid = 0; cbid < n; ++cbid) {
    std::string_view name = driver ? DriverIndex().Find(cbid) : RuntimeIndex().Find(cbid);
    if (name.empty()) continue;
    const Api api = ApiFromCbid(driver, cbid);
    traits.category[cbid] = api != Api::kUnknown ? CategoryOf(api) : CategoryFromName(name);
    traits.launch_many[cbid] = traits.category[cbid] == ApiCategory::kLaunch &&
                               (name.find("Graph") != std::string_view::npos ||
                                name.find("MultiDevice") != std::string_view::npos);
    traits.launch_configuration[cbid] =
        !driver && (name == "__cudaPushCallConfiguration" || name == "__cudaPopCallConfiguration");
  }
  return traits;
}

const CuptiCallTraits& Traits(bool driver) {
  static const auto* runtime = new CuptiCallTraits(BuildTraits(false));
  static const auto* drv = new CuptiCallTraits(BuildTraits(true));
  return driver ? *drv : *runtime;
}

}  // namespace

ApiCategory CuptiCallCategory(bool driver, uint32_t cbid) {
  const CuptiCallTraits& traits = Traits(driver);
  return cbid < traits.category.size() ? traits.category[cbid] : ApiCategory::kOther;
}

bool CuptiCallMayLaunchMany(bool driver, uint32_t cbid) {
  const CuptiCallTraits& traits = Traits(driver);
  return cbid < traits.launch_many.size() && traits.launch_many[cbid];
}

std::string_view CategoryName(ApiCategory category) {
  switch (category) {
    case ApiCategory::kLaunch:
      return "launch";
    case ApiCategory::kCopy:
      return "copy";
    case ApiCategory::kMemset:
      return "memset";
    case ApiCategory::kSync:
      return "sync";
    case ApiCategory::kAlloc:
      return "alloc";
    case ApiCategory::kFree:
      return "free";
    case ApiCategory::kQuery:
      return "query";
    case ApiCategory::kOther:
      return "other";
  }
  return "other";
}

std::string_view ApiName(Api api) {
  const size_t i = static_cast<size_t>(api);
  return i < kApiSlots ? kApiTable.names[i] : std::string_view("unknown");
}

ApiCategory CategoryOf(Api api) {
  const size_t i = static_cast<size_t>(api);
  return i < kApiSlots ? kApiTable.categories[i] : ApiCategory::kOther;
}

bool IsSynchronousCopy(Api api) {
  switch (api) {
    case Api::kCudaMemcpy:
    case Api::kCudaMemcpyPtds:
    case Api::kCudaMemcpy2D:
    case Api::kCudaMemcpy2DPtds:
    case Api::kCudaMemcpy3D:
    case Api::kCudaMemcpy3DPtds:
    case Api::kCudaMemcpyPeer:
    case Api::kCudaMemcpyToSymbol:
    case Api::kCudaMemcpyToSymbolPtds:
    case Api::kCudaMemcpyFromSymbol:
    case Api::kCudaMemcpyFromSymbolPtds:
      return true;
    default:
      return false;
  }
}

bool IsAsyncCopy(Api api) {
  return CategoryOf(api) == ApiCategory::kCopy && !IsSynchronousCopy(api);
}

std::string_view RuntimeCbidName(uint32_t cbid) { return RuntimeIndex().Find(cbid); }
std::string_view DriverCbidName(uint32_t cbid) { return DriverIndex().Find(cbid); }

Api ApiFromRuntimeCbid(uint32_t cbid) {
  const std::vector<Api>& table = RuntimeCbidToApi();
  return cbid < table.size() ? table[cbid] : Api::kUnknown;
}

bool IsLaunchConfigurationCall(bool driver, uint32_t cbid) {
  if (driver) return false;
  // Asked of every API record: two ids to compare, found once (UINT32_MAX: not in the table).
  static const std::pair<uint32_t, uint32_t> ids = [] {
    std::pair<uint32_t, uint32_t> found{UINT32_MAX, UINT32_MAX};
    const CuptiCallTraits& traits = Traits(false);
    for (uint32_t id = 0; id < traits.launch_configuration.size(); ++id) {
      if (!traits.launch_configuration[id]) continue;
      (found.first == UINT32_MAX ? found.first : found.second) = id;
    }
    return found;
  }();
  return cbid == ids.first || cbid == ids.second;
}

std::string CuptiCallName(bool driver, uint32_t cbid) {
  std::string_view name = driver ? DriverCbidName(cbid) : RuntimeCbidName(cbid);
  if (!name.empty()) return std::string(name);
  return absl::StrCat(driver ? "driver cbid:" : "cbid:", cbid);
}

ApiCategory CategoryFromName(std::string_view name) {
  // Order matters: "cudaMemcpy...Async" is a copy, "cuStreamWaitEvent" a sync, "...Query" a query.
  auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("Launch")) return ApiCategory::kLaunch;
  if (has("Memcpy")) return ApiCategory::kCopy;
  if (has("Memset")) return ApiCategory::kMemset;
  if (has("Synchronize") || has("WaitEvent") || has("StreamWaitValue")) return ApiCategory::kSync;
  if (has("Query")) return ApiCategory::kQuery;
  if (has("Free") || has("HostUnregister")) return ApiCategory::kFree;
  if (has("Malloc") || has("MemAlloc") || has("HostAlloc") || has("HostRegister") ||
      has("MemHostAlloc") || has("MemCreate")) {
    return ApiCategory::kAlloc;
  }
  return ApiCategory::kOther;
}

}  // namespace brrr
