// Tests the API catalog: names (incl. _ptsz/_ptds forms), categories, CUPTI cbid tables.
#include "collector/analysis/api_catalog.h"

#include <vector>

#include "gtest/gtest.h"

namespace brrr {
namespace {

TEST(ApiCatalogTest, HookedApiNames) {
  EXPECT_EQ(ApiName(Api::kCudaLaunchKernelInternal), "__cudaLaunchKernel");
  EXPECT_EQ(ApiName(Api::kCudaLaunchKernelInternalPtsz), "__cudaLaunchKernel_ptsz");
  EXPECT_EQ(ApiName(Api::kCudaMemcpyAsync), "cudaMemcpyAsync");
  EXPECT_EQ(ApiName(Api::kCudaMemcpyPtds), "cudaMemcpy_ptds");
  EXPECT_EQ(ApiName(Api::kCudaMemcpyAsyncPtsz), "cudaMemcpyAsync_ptsz");
  EXPECT_EQ(ApiName(Api::kCudaEventRecordWithFlagsPtsz), "cudaEventRecordWithFlags_ptsz");
  EXPECT_EQ(ApiName(Api::kUnknown), "unknown");
  EXPECT_EQ(ApiName(static_cast<Api>(60000)), "unknown");
}

TEST(ApiCatalogTest, EveryHookedApiHasAName) {
  int named = 0;
  for (int i = 1; i < static_cast<int>(Api::kApiCount); ++i) {
    if (ApiName(static_cast<Api>(i)) != "unknown") ++named;
  }
  EXPECT_EQ(named, 68);  // the number of enumerators in ring::Api besides kUnknown/kApiCount
}

// The joiner lets a hooked call own only runtime records of functions brrr hooks: every hooked
// function must therefore be reachable from some CUPTI runtime cbid.
TEST(ApiCatalogTest, EveryHookedApiHasARuntimeCbid) {
  std::vector<bool> reached(static_cast<size_t>(Api::kApiCount), false);
  for (uint32_t cbid = 0; cbid < 2000; ++cbid) {
    reached[static_cast<size_t>(ApiFromRuntimeCbid(cbid))] = true;
  }
  for (int i = 1; i < static_cast<int>(Api::kApiCount); ++i) {
    const Api api = static_cast<Api>(i);
    if (ApiName(api) == "unknown") continue;
    EXPECT_TRUE(reached[static_cast<size_t>(i)]) << ApiName(api);
  }
}

TEST(ApiCatalogTest, Categories) {
  EXPECT_EQ(CategoryOf(Api::kCudaGraphLaunch), ApiCategory::kLaunch);
  EXPECT_EQ(CategoryOf(Api::kCudaMemcpy3DAsyncPtsz), ApiCategory::kCopy);
  EXPECT_EQ(CategoryOf(Api::kCudaMemsetAsync), ApiCategory::kMemset);
  EXPECT_EQ(CategoryOf(Api::kCudaHostRegister), ApiCategory::kAlloc);
  EXPECT_EQ(CategoryOf(Api::kCudaFreeHost), ApiCategory::kFree);
  EXPECT_EQ(CategoryOf(Api::kCudaStreamWaitEvent), ApiCategory::kSync);
  EXPECT_EQ(CategoryOf(Api::kCudaStreamQuery), ApiCategory::kQuery);
  EXPECT_EQ(CategoryOf(Api::kCudaEventQuery), ApiCategory::kQuery);
  EXPECT_EQ(CategoryOf(Api::kCudaEventRecord), ApiCategory::kOther);
  EXPECT_EQ(CategoryName(ApiCategory::kQuery), "query");
  EXPECT_TRUE(IsSynchronousCopy(Api::kCudaMemcpyFromSymbolPtds));
  EXPECT_FALSE(IsSynchronousCopy(Api::kCudaMemcpyAsync));
  EXPECT_TRUE(IsAsyncCopy(Api::kCudaMemcpyPeerAsync));
  EXPECT_FALSE(IsAsyncCopy(Api::kCudaMemset));
}

TEST(ApiCatalogTest, CuptiRuntimeCbids) {
  EXPECT_EQ(RuntimeCbidName(31), "cudaMemcpy");
  EXPECT_EQ(RuntimeCbidName(214), "cudaLaunchKernel_ptsz");
  EXPECT_EQ(ApiFromRuntimeCbid(31), Api::kCudaMemcpy);
  EXPECT_EQ(ApiFromRuntimeCbid(505), Api::kCudaLaunchKernelInternal);
  EXPECT_EQ(ApiFromRuntimeCbid(506), Api::kCudaLaunchKernelInternalPtsz);
  EXPECT_EQ(ApiFromRuntimeCbid(1), Api::kUnknown);      // cudaDriverGetVersion: not hooked
  EXPECT_TRUE(IsLaunchConfigurationCall(false, 502));   // __cudaPushCallConfiguration
  EXPECT_TRUE(IsLaunchConfigurationCall(false, 503));   // __cudaPopCallConfiguration
  EXPECT_FALSE(IsLaunchConfigurationCall(true, 502));   // a driver cbid
  EXPECT_FALSE(IsLaunchConfigurationCall(false, 505));  // __cudaLaunchKernel
  EXPECT_EQ(CuptiCallName(false, 99999), "cbid:99999");
  EXPECT_EQ(CuptiCallName(true, 99999), "driver cbid:99999");
  EXPECT_EQ(CuptiCallCategory(false, 99999), ApiCategory::kOther);
}

TEST(ApiCatalogTest, CuptiDriverCbids) {
  EXPECT_EQ(DriverCbidName(17), "cuCtxSynchronize");
  EXPECT_EQ(DriverCbidName(278), "cuMemcpyDtoH_v2");
  EXPECT_EQ(CuptiCallCategory(true, 307), ApiCategory::kLaunch);  // cuLaunchKernel
  EXPECT_EQ(CuptiCallCategory(true, 17), ApiCategory::kSync);
  EXPECT_EQ(CuptiCallCategory(true, 278), ApiCategory::kCopy);
  EXPECT_FALSE(CuptiCallMayLaunchMany(true, 307));
  EXPECT_TRUE(CuptiCallMayLaunchMany(false, 311));  // cudaGraphLaunch
}

TEST(ApiCatalogTest, CategoryFromName) {
  EXPECT_EQ(CategoryFromName("cudaMemcpy2DFromArrayAsync"), ApiCategory::kCopy);
  EXPECT_EQ(CategoryFromName("cuStreamWaitEvent"), ApiCategory::kSync);
  EXPECT_EQ(CategoryFromName("cuEventQuery"), ApiCategory::kQuery);
  EXPECT_EQ(CategoryFromName("cuMemFree_v2"), ApiCategory::kFree);
  EXPECT_EQ(CategoryFromName("cuMemAlloc_v2"), ApiCategory::kAlloc);
  EXPECT_EQ(CategoryFromName("cudaGetDevice"), ApiCategory::kOther);
}

}  // namespace
}  // namespace brrr
