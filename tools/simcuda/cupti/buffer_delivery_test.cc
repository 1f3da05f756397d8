// Tests for BufferDelivery: worker-thread delivery, synchronous drain, no self-deadlock.
#include "buffer_delivery.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace simcuda::cupti {
namespace {

struct Delivered {
  std::thread::id thread;
  uint8_t* data;
  size_t valid_size;
};

std::mutex g_mu;
std::vector<Delivered> g_delivered;
std::atomic<bool> g_slow{false};
BufferDelivery* g_flush_from_callback = nullptr;

void Record(CUcontext, uint32_t, uint8_t* data, size_t, size_t valid_size) {
  if (g_slow.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (g_flush_from_callback != nullptr) g_flush_from_callback->DeliverAllNow();
  std::lock_guard<std::mutex> lock(g_mu);
  g_delivered.push_back({std::this_thread::get_id(), data, valid_size});
}

std::vector<Delivered> Snapshot() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_delivered;
}

class BufferDeliveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::lock_guard<std::mutex> lock(g_mu);
    g_delivered.clear();
    g_slow = false;
    g_flush_from_callback = nullptr;
  }
  uint8_t storage_[4][8] = {};
};

TEST_F(BufferDeliveryTest, WorkerThreadDeliversWithoutFlush) {
  BufferDelivery delivery;
  delivery.Enqueue({&Record, storage_[0], 8, 8});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Snapshot().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::vector<Delivered> delivered = Snapshot();
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_NE(delivered[0].thread, std::this_thread::get_id());
  EXPECT_EQ(delivered[0].data, storage_[0]);
  EXPECT_EQ(delivered[0].valid_size, 8u);
}

TEST_F(BufferDeliveryTest, DeliverAllNowReturnsOnlyAfterEveryBufferIsDelivered) {
  g_slow = true;  // the worker is inside a slow callback while we flush
  BufferDelivery delivery;
  for (auto& buffer : storage_) delivery.Enqueue({&Record, buffer, 8, 0});
  delivery.DeliverAllNow();
  const std::vector<Delivered> delivered = Snapshot();
  ASSERT_EQ(delivered.size(), 4u);
  for (auto& buffer : storage_) {
    int seen = 0;
    for (const Delivered& d : delivered) seen += d.data == buffer ? 1 : 0;
    EXPECT_EQ(seen, 1);
  }
}

TEST_F(BufferDeliveryTest, FlushFromInsideCallbackDoesNotDeadlock) {
  BufferDelivery delivery;
  g_flush_from_callback = &delivery;
  delivery.Enqueue({&Record, storage_[0], 8, 0});
  delivery.Enqueue({&Record, storage_[1], 8, 0});
  delivery.DeliverAllNow();
  g_flush_from_callback = nullptr;
  EXPECT_EQ(Snapshot().size(), 2u);
}

TEST_F(BufferDeliveryTest, DestructorDeliversWhatIsQueued) {
  g_slow = true;
  {
    BufferDelivery delivery;
    delivery.Enqueue({&Record, storage_[0], 8, 0});
    delivery.Enqueue({&Record, storage_[1], 8, 0});
  }
  EXPECT_EQ(Snapshot().size(), 2u);
}

}  // namespace
}  // namespace simcuda::cupti
