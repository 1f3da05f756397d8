// Tests of the device model through its C API (include/simcuda/engine.h) and the activity sink:
// exact virtual timestamps, in-order streams, legacy-stream dependencies, blocking rules of copies,
// events, synchronization records and handle validation. The engine reads BRRR_SIM_* once, so
// main() sets them before any test runs.
#include "simcuda/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "clock.h"
#include "simcuda/activity_sink.h"

namespace {

constexpr uint64_t kKernelNs = 1000000;    // BRRR_SIM_KERNEL_NS
constexpr uint64_t kBlockerNs = 50000000;  // BRRR_SIM_KERNELS blocker=...
constexpr double kBytesPerNs = 1.0;        // BRRR_SIM_COPY_GBPS

class RecordingSink : public simcuda::ActivitySink {
 public:
  void OnApiExit(const simcuda::ApiEvent& e) override {
    std::lock_guard lock(mu_);
    api.push_back(e);
  }
  void OnKernel(const simcuda::KernelEvent& e) override {
    std::lock_guard lock(mu_);
    kernels.push_back(e);
  }
  void OnMemcpy(const simcuda::MemcpyEvent& e) override {
    std::lock_guard lock(mu_);
    copies.push_back(e);
  }
  void OnMemset(const simcuda::MemsetEvent& e) override {
    std::lock_guard lock(mu_);
    memsets.push_back(e);
  }
  void OnSynchronization(const simcuda::SynchronizationEvent& e) override {
    std::lock_guard lock(mu_);
    syncs.push_back(e);
  }
  template <typename T>
  std::vector<T> Snapshot(const std::vector<T>& v) {
    std::lock_guard lock(mu_);
    return v;
  }

  std::mutex mu_;
  std::vector<simcuda::ApiEvent> api;
  std::vector<simcuda::KernelEvent> kernels;
  std::vector<simcuda::MemcpyEvent> copies;
  std::vector<simcuda::MemsetEvent> memsets;
  std::vector<simcuda::SynchronizationEvent> syncs;
};

void KernelA() {}
void KernelB() {}
void Blocker() {}

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    simcuda_set_activity_sink(&sink_);
    kernel_ = simcuda_kernel_register(reinterpret_cast<const void*>(&KernelA), "_Z7kernelAv");
    blocker_ = simcuda_kernel_register(reinterpret_cast<const void*>(&Blocker), "_Z7blockerv");
    ASSERT_NE(kernel_, nullptr);
    legacy_ = simcuda_stream_resolve(nullptr, 0);
  }
  void TearDown() override {
    simcuda_device_synchronize(simcuda_next_correlation_id());
    simcuda_set_activity_sink(nullptr);
  }

  simcuda_status Launch(simcuda_stream* stream, const simcuda_kernel* kernel, uint32_t corr) {
    return simcuda_launch_kernel(stream, kernel, {1, 1, 1}, {32, 1, 1}, 0, corr);
  }
  simcuda::KernelEvent KernelWith(uint32_t corr) {
    for (const auto& k : sink_.Snapshot(sink_.kernels)) {
      if (k.correlation_id == corr) return k;
    }
    ADD_FAILURE() << "no kernel record with correlation id " << corr;
    return {};
  }

  RecordingSink sink_;
  simcuda_kernel* kernel_ = nullptr;
  simcuda_kernel* blocker_ = nullptr;
  simcuda_stream* legacy_ = nullptr;
};

TEST_F(EngineTest, KernelNamesAndLookup) {
  EXPECT_STREQ(simcuda_kernel_name(kernel_), "_Z7kernelAv");
  EXPECT_EQ(simcuda_kernel_lookup(reinterpret_cast<const void*>(&KernelA)), kernel_);
  EXPECT_EQ(simcuda_kernel_lookup(kernel_), kernel_);  // a handle resolves to itself
  EXPECT_EQ(simcuda_kernel_lookup(reinterpret_cast<const void*>(&KernelB)), nullptr);
}

TEST_F(EngineTest, QueuedKernelsRunBackToBackWithConfiguredDurations) {
  const uint32_t c0 = simcuda_next_correlation_id();
  const uint32_t c1 = simcuda_next_correlation_id();
  const uint32_t c2 = simcuda_next_correlation_id();
  ASSERT_EQ(Launch(legacy_, blocker_, c0), SIMCUDA_SUCCESS);
  ASSERT_EQ(Launch(legacy_, kernel_, c1), SIMCUDA_SUCCESS);
  ASSERT_EQ(Launch(legacy_, kernel_, c2), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_stream_synchronize(legacy_, simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  const auto b = KernelWith(c0), k1 = KernelWith(c1), k2 = KernelWith(c2);
  EXPECT_EQ(b.end_ns - b.start_ns, kBlockerNs);
  EXPECT_EQ(k1.end_ns - k1.start_ns, kKernelNs);
  EXPECT_EQ(k1.start_ns, b.end_ns);  // queued behind the blocker
  EXPECT_EQ(k2.start_ns, k1.end_ns);
  EXPECT_GE(b.start_ns, b.queued_ns);
  EXPECT_STREQ(k1.name, "_Z7kernelAv");
  EXPECT_EQ(k1.block_x, 32);
}

TEST_F(EngineTest, StreamSynchronizeReturnsNoEarlierThanTheVirtualEnd) {
  const uint32_t c = simcuda_next_correlation_id();
  ASSERT_EQ(Launch(legacy_, blocker_, c), SIMCUDA_SUCCESS);
  const uint32_t sync_corr = simcuda_next_correlation_id();
  ASSERT_EQ(simcuda_stream_synchronize(legacy_, sync_corr), SIMCUDA_SUCCESS);
  const uint64_t returned = simcuda::NowNs();
  EXPECT_GE(returned, KernelWith(c).end_ns);
  const auto syncs = sink_.Snapshot(sink_.syncs);
  ASSERT_FALSE(syncs.empty());
  EXPECT_EQ(syncs.back().correlation_id, sync_corr);
  EXPECT_EQ(syncs.back().type, 3);  // CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
  EXPECT_GE(syncs.back().end_ns, KernelWith(c).end_ns);
}

TEST_F(EngineTest, NonBlockingStreamRunsConcurrentlyWithLegacyStream) {
  simcuda_stream* nb = nullptr;
  ASSERT_EQ(simcuda_stream_create(SIMCUDA_STREAM_NON_BLOCKING, 0, &nb), SIMCUDA_SUCCESS);
  const uint32_t c0 = simcuda_next_correlation_id(), c1 = simcuda_next_correlation_id();
  ASSERT_EQ(Launch(legacy_, blocker_, c0), SIMCUDA_SUCCESS);
  ASSERT_EQ(Launch(nb, kernel_, c1), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_device_synchronize(simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  EXPECT_LT(KernelWith(c1).start_ns, KernelWith(c0).end_ns);
  EXPECT_EQ(simcuda_stream_destroy(nb), SIMCUDA_SUCCESS);
}

TEST_F(EngineTest, BlockingStreamWaitsForLegacyAndLegacyWaitsForIt) {
  simcuda_stream* s = nullptr;
  ASSERT_EQ(simcuda_stream_create(0, 0, &s), SIMCUDA_SUCCESS);
  const uint32_t c0 = simcuda_next_correlation_id(), c1 = simcuda_next_correlation_id(),
                 c2 = simcuda_next_correlation_id();
  ASSERT_EQ(Launch(legacy_, blocker_, c0), SIMCUDA_SUCCESS);
  ASSERT_EQ(Launch(s, kernel_, c1), SIMCUDA_SUCCESS);
  ASSERT_EQ(Launch(legacy_, kernel_, c2), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_device_synchronize(simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  EXPECT_EQ(KernelWith(c1).start_ns, KernelWith(c0).end_ns);
  EXPECT_EQ(KernelWith(c2).start_ns, KernelWith(c1).end_ns);
  EXPECT_EQ(simcuda_stream_destroy(s), SIMCUDA_SUCCESS);
}

TEST_F(EngineTest, EventsMeasureExactVirtualTime) {
  simcuda_event *a = nullptr, *b = nullptr;
  ASSERT_EQ(simcuda_event_create(0, &a), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_create(0, &b), SIMCUDA_SUCCESS);
  float ms = -1;
  EXPECT_EQ(simcuda_event_elapsed_ms(&ms, a, b), SIMCUDA_INVALID_RESOURCE_HANDLE);  // unrecorded
  ASSERT_EQ(Launch(legacy_, blocker_, simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_record(a, legacy_, simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Launch(legacy_, kernel_, 0), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_record(b, legacy_, simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_event_query(b), SIMCUDA_NOT_READY);
  EXPECT_EQ(simcuda_event_elapsed_ms(&ms, a, b), SIMCUDA_NOT_READY);
  ASSERT_EQ(simcuda_event_synchronize(b, simcuda_next_correlation_id()), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_event_query(b), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_elapsed_ms(&ms, a, b), SIMCUDA_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 3 * kKernelNs / 1e6f);
  simcuda_event* untimed = nullptr;
  ASSERT_EQ(simcuda_event_create(SIMCUDA_EVENT_DISABLE_TIMING, &untimed), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_record(untimed, legacy_, 1), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_synchronize(untimed, 1), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_event_elapsed_ms(&ms, a, untimed), SIMCUDA_INVALID_RESOURCE_HANDLE);
  for (auto* e : {a, b, untimed}) EXPECT_EQ(simcuda_event_destroy(e), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_event_destroy(a), SIMCUDA_INVALID_RESOURCE_HANDLE);
}

TEST_F(EngineTest, StreamWaitEventOrdersANonBlockingStream) {
  simcuda_stream* nb = nullptr;
  simcuda_event* e = nullptr;
  ASSERT_EQ(simcuda_stream_create(SIMCUDA_STREAM_NON_BLOCKING, 0, &nb), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_create(0, &e), SIMCUDA_SUCCESS);
  const uint32_t c0 = simcuda_next_correlation_id(), c1 = simcuda_next_correlation_id();
  ASSERT_EQ(Launch(legacy_, blocker_, c0), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_event_record(e, legacy_, 1), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_stream_wait_event(nb, e, 2), SIMCUDA_SUCCESS);
  ASSERT_EQ(Launch(nb, kernel_, c1), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_stream_synchronize(nb, 3), SIMCUDA_SUCCESS);
  EXPECT_GE(KernelWith(c1).start_ns, KernelWith(c0).end_ns);
  bool saw_wait = false;
  for (const auto& s : sink_.Snapshot(sink_.syncs))
    saw_wait |= s.type == 2 && s.correlation_id == 2;
  EXPECT_TRUE(saw_wait);
  simcuda_event_destroy(e);
  simcuda_stream_destroy(nb);
}

TEST_F(EngineTest, CopiesMoveBytesAndBlockAsInCuda) {
  constexpr size_t kBytes = 2000000;  // 2 ms at 1 byte/ns
  void* device = nullptr;
  void* pinned = nullptr;
  ASSERT_EQ(simcuda_device_alloc(kBytes, &device), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_host_alloc(kBytes, &pinned), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_memory_kind(device), 3);
  EXPECT_EQ(simcuda_memory_kind(static_cast<char*>(pinned) + 5), 2);
  std::vector<unsigned char> pageable(kBytes, 0xab);
  EXPECT_EQ(simcuda_memory_kind(pageable.data()), 1);

  // Pageable async copy: returns only when done.
  const uint32_t c0 = simcuda_next_correlation_id();
  ASSERT_EQ(
      simcuda_memcpy(legacy_, device, pageable.data(), kBytes, SIMCUDA_COPY_HOST_TO_DEVICE, 1, c0),
      SIMCUDA_SUCCESS);
  const uint64_t returned = simcuda::NowNs();
  auto copies = sink_.Snapshot(sink_.copies);
  ASSERT_FALSE(copies.empty());
  EXPECT_EQ(copies.back().correlation_id, c0);
  EXPECT_GE(returned, copies.back().end_ns);
  EXPECT_EQ(copies.back().end_ns - copies.back().start_ns,
            static_cast<uint64_t>(kBytes / kBytesPerNs));
  EXPECT_EQ(copies.back().copy_kind, 1);  // HTOD
  EXPECT_EQ(copies.back().src_kind, 1);   // PAGEABLE
  EXPECT_EQ(copies.back().dst_kind, 3);   // DEVICE

  // Pinned async copy (queued behind a 50 ms kernel): returns before the copy is done; then the
  // data arrives.
  ASSERT_EQ(Launch(legacy_, blocker_, 6), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_memcpy(legacy_, pinned, device, kBytes, SIMCUDA_COPY_DEFAULT, 1, 7),
            SIMCUDA_SUCCESS);
  const uint64_t pinned_returned = simcuda::NowNs();
  EXPECT_EQ(simcuda_stream_query(legacy_), SIMCUDA_NOT_READY);
  ASSERT_EQ(simcuda_stream_synchronize(legacy_, 8), SIMCUDA_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(pinned)[kBytes - 1], 0xab);
  copies = sink_.Snapshot(sink_.copies);
  EXPECT_LT(pinned_returned, copies.back().start_ns);
  EXPECT_EQ(copies.back().copy_kind, 2);  // DTOH
  EXPECT_EQ(copies.back().dst_kind, 2);   // PINNED

  // Memset is async, and really sets.
  ASSERT_EQ(simcuda_memset(legacy_, device, 0x11, 16, 0, 9), SIMCUDA_SUCCESS);
  ASSERT_EQ(
      simcuda_memcpy(legacy_, pageable.data(), device, 16, SIMCUDA_COPY_DEVICE_TO_HOST, 0, 10),
      SIMCUDA_SUCCESS);
  EXPECT_EQ(pageable[15], 0x11);

  // Kind mismatches and out-of-bounds device ranges are rejected.
  EXPECT_EQ(
      simcuda_memcpy(legacy_, device, pageable.data(), 16, SIMCUDA_COPY_DEVICE_TO_HOST, 0, 11),
      SIMCUDA_INVALID_VALUE);
  EXPECT_EQ(simcuda_memcpy(legacy_, static_cast<char*>(device) + 10, pageable.data(), kBytes,
                           SIMCUDA_COPY_HOST_TO_DEVICE, 0, 12),
            SIMCUDA_INVALID_VALUE);
  EXPECT_EQ(simcuda_host_free(pinned), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_device_free(device), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_device_free(device), SIMCUDA_INVALID_VALUE);
}

TEST_F(EngineTest, DeviceFreeWaitsForQueuedWork) {
  void* device = nullptr;
  ASSERT_EQ(simcuda_device_alloc(256, &device), SIMCUDA_SUCCESS);
  const uint32_t c = simcuda_next_correlation_id();
  ASSERT_EQ(Launch(legacy_, blocker_, c), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_device_free(device), SIMCUDA_SUCCESS);
  EXPECT_GE(simcuda::NowNs(), KernelWith(c).end_ns);
}

TEST_F(EngineTest, HostRegistrationTracksPinnedRanges) {
  std::vector<char> buffer(4096);
  ASSERT_EQ(simcuda_host_register(buffer.data(), buffer.size()), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_memory_kind(buffer.data() + 100), 2);
  EXPECT_EQ(simcuda_host_register(buffer.data() + 10, 10), SIMCUDA_HOST_MEMORY_ALREADY_REGISTERED);
  EXPECT_EQ(simcuda_host_unregister(buffer.data()), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_host_unregister(buffer.data()), SIMCUDA_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(simcuda_memory_kind(buffer.data()), 1);
}

TEST_F(EngineTest, InvalidHandlesAndConfigurationsAreRejected) {
  int not_a_stream = 0;
  EXPECT_EQ(simcuda_stream_resolve(&not_a_stream, 0), nullptr);
  simcuda_stream* s = nullptr;
  ASSERT_EQ(simcuda_stream_create(0, 0, &s), SIMCUDA_SUCCESS);
  ASSERT_EQ(simcuda_stream_destroy(s), SIMCUDA_SUCCESS);
  EXPECT_EQ(simcuda_stream_resolve(s, 0), nullptr);
  EXPECT_EQ(simcuda_stream_destroy(s), SIMCUDA_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(simcuda_stream_destroy(legacy_), SIMCUDA_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(simcuda_launch_kernel(legacy_, kernel_, {0, 1, 1}, {1, 1, 1}, 0, 1),
            SIMCUDA_INVALID_CONFIGURATION);
  EXPECT_EQ(simcuda_launch_kernel(legacy_, kernel_, {1, 1, 1}, {1025, 1, 1}, 0, 1),
            SIMCUDA_INVALID_CONFIGURATION);
  EXPECT_EQ(simcuda_launch_kernel(legacy_, kernel_, {1, 1, 1}, {32, 32, 2}, 0, 1),
            SIMCUDA_INVALID_CONFIGURATION);
  EXPECT_EQ(simcuda_launch_kernel(legacy_, nullptr, {1, 1, 1}, {1, 1, 1}, 0, 1),
            SIMCUDA_INVALID_DEVICE_FUNCTION);
  int not_an_event = 0;
  EXPECT_EQ(simcuda_event_query(reinterpret_cast<simcuda_event*>(&not_an_event)),
            SIMCUDA_INVALID_RESOURCE_HANDLE);
}

TEST_F(EngineTest, PerThreadDefaultStreamsAreDistinctPerThread) {
  simcuda_stream* mine = simcuda_stream_resolve(nullptr, 1);
  EXPECT_EQ(simcuda_stream_resolve(SIMCUDA_STREAM_HANDLE_PER_THREAD, 0), mine);
  EXPECT_NE(mine, legacy_);
  simcuda_stream* other = nullptr;
  std::thread([&other] { other = simcuda_stream_resolve(nullptr, 1); }).join();
  EXPECT_NE(other, mine);
}

TEST_F(EngineTest, CorrelationIdsAreUniqueAndNonZero) {
  const uint32_t a = simcuda_next_correlation_id(), b = simcuda_next_correlation_id();
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
}

TEST_F(EngineTest, ReportedApiCallsCarryTheCallersData) {
  simcuda_report_api(0, 20, 4242, 100, 200, 2);
  const auto api = sink_.Snapshot(sink_.api);
  ASSERT_FALSE(api.empty());
  EXPECT_EQ(api.back().correlation_id, 4242u);
  EXPECT_EQ(api.back().cbid, 20u);
  EXPECT_EQ(api.back().return_value, 2);
  EXPECT_EQ(api.back().process_id, static_cast<uint32_t>(getpid()));
}

}  // namespace

int main(int argc, char** argv) {
  setenv("BRRR_SIM_KERNEL_NS", "1000000", 1);
  setenv("BRRR_SIM_KERNELS", "blocker=50000000", 1);
  setenv("BRRR_SIM_COPY_GBPS", "1", 1);
  setenv("BRRR_SIM_LAUNCH_NS", "0", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
