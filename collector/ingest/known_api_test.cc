// Tests that the reader's API validation accepts exactly ring_format.h's named enumerators.
#include "collector/ingest/known_api.h"

#include <gtest/gtest.h>

namespace brrr::ingest {
namespace {

using ring::Api;

TEST(KnownApiTest, AcceptsNamedApis) {
  for (Api api : {Api::kCudaLaunchKernelInternal, Api::kCudaGraphLaunchPtsz, Api::kCudaMemcpy,
                  Api::kCudaMemcpyFromSymbolAsyncPtsz, Api::kCudaMemset3DAsync, Api::kCudaMalloc,
                  Api::kCudaHostRegister, Api::kCudaFree, Api::kCudaHostUnregister,
                  Api::kCudaStreamSynchronize, Api::kCudaEventRecordWithFlagsPtsz,
                  Api::kCudaProfilerStart, Api::kCudaProfilerStop}) {
    EXPECT_TRUE(IsKnownApi(static_cast<uint16_t>(api))) << static_cast<int>(api);
  }
}

TEST(KnownApiTest, RejectsUnknownGapsAndOutOfRange) {
  for (uint16_t v : {0, 11, 19, 42, 58, 69, 78, 85, 99, 115, 116, 1000, 65535}) {
    EXPECT_FALSE(IsKnownApi(v)) << v;
  }
}

}  // namespace
}  // namespace brrr::ingest
