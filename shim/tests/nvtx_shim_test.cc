// End-to-end tests of libbrrr.so as an NVTX injection library: nvtx_app (header-only nvtx3, no
// device code) preloaded with the shim on the simulated device, in `brrr run` mode (BRRR_SHM names
// a segment this test made, as the collector would), NVTX_INJECTION64_PATH left unset so that the
// shim must set it. Checks the NVTX records in the segment against ring_format.h: op, message and
// domain names, range ids, order among the thread's CUDA calls, that a range opened before the
// first CUDA call is there and that a library's own NVTX instance is injected too; and that a
// user's own NVTX_INJECTION64_PATH is left alone.
// Paths come from the build: NVTX_APP, BRRR_SHIM_PATH, SIMCUDA_LIB_DIR, BRRR_PRELOAD_PREFIX.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "shim/segment.h"
#include "tests/e2e/sim_process.h"

namespace brrr::shim {
namespace {

// A segment made the way `brrr run`'s collector makes one; nothing reads it while the app runs.
class Segment {
 public:
  Segment() {
    name_ = "/brrr-nvtxtest-" + std::to_string(getpid());
    const ring::SegmentGeometry g;
    const int fd = shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return;
    bytes_ = ring::ComputeLayout(g).segment_size;
    if (ftruncate(fd, static_cast<off_t>(bytes_)) == 0) {
      base_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
    ok_ = base_ != nullptr && base_ != MAP_FAILED && InitSegmentMemory(base_, bytes_, g, &view_);
  }
  ~Segment() {
    if (base_ != nullptr && base_ != MAP_FAILED) munmap(base_, bytes_);
    shm_unlink(name_.c_str());
  }
  bool ok() const { return ok_; }
  const std::string& name() const { return name_; }

  struct Ring {
    std::vector<ring::HostRecord> records;
  };
  std::vector<Ring> Rings() const {
    std::vector<Ring> out;
    for (uint32_t i = 0; i < view_.geometry.max_threads; ++i) {
      ring::RingHeader* r = ring::ThreadRingAt(view_.base, view_.layout, i);
      if (r->state.load() == static_cast<uint32_t>(ring::RingState::kFree)) continue;
      Ring ring_copy;
      const uint64_t w = r->write_index.load(std::memory_order_acquire);
      EXPECT_LE(w, view_.geometry.ring_capacity);
      for (uint64_t k = 0; k < w && k < view_.geometry.ring_capacity; ++k) {
        ring_copy.records.push_back(ring::ThreadRecords(r)[k]);
      }
      out.push_back(std::move(ring_copy));
    }
    return out;
  }
  // The text of name id `id` ("<none>" for 0, "<bad>" for an unusable slot).
  std::string Name(uint64_t id) const {
    if (id == 0) return "<none>";
    if (id > view_.geometry.name_slots) return "<bad>";
    const ring::NameSlot& s = ring::NameSlotsAt(view_.base, view_.layout)[id - 1];
    if (s.ready.load() != 1 || s.length > ring::kMaxNameLength) return "<bad>";
    return std::string(s.text, s.length);
  }

 private:
  std::string name_;
  void* base_ = nullptr;
  uint64_t bytes_ = 0;
  bool ok_ = false;
  SegmentView view_;
};

bool IsNvtx(const ring::HostRecord& r) { return (r.flags & ring::kRecordNvtx) != 0; }

// One NVTX record as text: "push outer" / "pop" / "start async @brrr.test #5".
std::string Describe(const Segment& seg, const ring::HostRecord& r) {
  static const char* const kOps[] = {"?", "push", "pop", "start", "end", "mark"};
  std::string s = r.api <= 5 ? kOps[r.api] : "?";
  if (r.target != 0) s += " " + seg.Name(r.target);
  if (r.stream != 0) s += " @" + seg.Name(r.stream);
  if (r.bytes != 0) s += " #" + std::to_string(r.bytes);
  return s;
}

std::vector<std::string> Environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (const std::string& kv : e2e::SimEnvironment(extra)) {
    // The run must start without it unless the test sets it.
    if (kv.rfind("NVTX_INJECTION64_PATH=", 0) == 0) {
      bool from_test = false;
      for (const std::string& e : extra) from_test |= e == kv;
      if (!from_test) continue;
    }
    env.push_back(kv);
  }
  return env;
}

const std::string kPreload = std::string(BRRR_PRELOAD_PREFIX) + BRRR_SHIM_PATH;

TEST(NvtxShimTest, RecordsEveryNvtxEventInTheCallingThreadsRing) {
  Segment seg;
  ASSERT_TRUE(seg.ok());
  const e2e::ProcessResult run = e2e::Spawn(
      {NVTX_APP}, Environment({"LD_PRELOAD=" + kPreload, "BRRR_SHM=" + seg.name()}), true);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // Nesting levels as NVTX's contract gives them (0-based; a pop without a push is negative).
  EXPECT_NE(run.output.find("levels 0 1 1 1 1 1 0 -1\n"), std::string::npos) << run.output;
  unsigned long long async_id = 0, plain_id = 0;
  const size_t at = run.output.find("ranges ");
  ASSERT_NE(at, std::string::npos) << run.output;
  ASSERT_EQ(sscanf(run.output.c_str() + at, "ranges %llu %llu", &async_id, &plain_id), 2);
  EXPECT_NE(async_id, 0u);
  EXPECT_NE(plain_id, async_id);

  const std::vector<Segment::Ring> rings = seg.Rings();
  const Segment::Ring* main_ring = nullptr;
  std::vector<std::string> other_threads;
  for (const Segment::Ring& r : rings) {
    bool has_malloc = false;  // the main thread's ring: the one with the app's cudaMalloc
    for (const ring::HostRecord& rec : r.records) {
      has_malloc |= !IsNvtx(rec) && rec.api == static_cast<uint16_t>(ring::Api::kCudaMalloc);
    }
    if (has_malloc) {
      EXPECT_EQ(main_ring, nullptr);
      main_ring = &r;
      continue;
    }
    for (const ring::HostRecord& rec : r.records) {
      if (IsNvtx(rec)) other_threads.push_back(Describe(seg, rec));
    }
  }
  ASSERT_NE(main_ring, nullptr);
  ASSERT_FALSE(main_ring->records.empty());
  // The range opened before the first CUDA call started the shim and is the first record.
  EXPECT_TRUE(IsNvtx(main_ring->records.front()));

  std::vector<std::string> main_nvtx;
  int push_registered = -1, pop_registered = -1, device_sync = -1;
  for (size_t i = 0; i < main_ring->records.size(); ++i) {
    const ring::HostRecord& r = main_ring->records[i];
    if (!IsNvtx(r)) {
      if (r.api == static_cast<uint16_t>(ring::Api::kCudaDeviceSynchronize)) {
        device_sync = static_cast<int>(i);
      }
      continue;
    }
    EXPECT_EQ(r.enter, r.exit);
    EXPECT_EQ(r.stack_id, 0u);
    EXPECT_EQ(r.flags, uint32_t{ring::kRecordNvtx});
    const std::string d = Describe(seg, r);
    if (d == "push registered @brrr.test") push_registered = static_cast<int>(i);
    if (d == "pop @brrr.test") pop_registered = static_cast<int>(i);
    main_nvtx.push_back(d);
  }
  const std::string a = "#" + std::to_string(async_id), p = "#" + std::to_string(plain_id);
  const std::vector<std::string> expected = {"push outer",
                                             "push wide-\xc3\xa9\xe4\xb8\xad",
                                             "pop",
                                             "push registered @brrr.test",
                                             "pop @brrr.test",
                                             "mark mark",
                                             "start async @brrr.test " + a,
                                             "start plain-start " + p,
                                             "end " + p,
                                             "push second-instance",  // the library's NVTX
                                             "pop",
                                             "pop",
                                             "pop"};
  EXPECT_EQ(main_nvtx, expected);
  // The range ended on another thread is recorded in that thread's ring.
  EXPECT_EQ(other_threads, std::vector<std::string>{"end @brrr.test " + a});
  // The CUDA call made inside the domain's range is between its push and pop in the ring.
  EXPECT_LT(push_registered, device_sync);
  EXPECT_LT(device_sync, pop_registered);
}

TEST(NvtxShimTest, LeavesAUsersOwnInjectionLibraryAlone) {
  Segment seg;
  ASSERT_TRUE(seg.ok());
  // Another tool's library (here one that does not exist): NVTX loads that, not brrr.
  const e2e::ProcessResult run =
      e2e::Spawn({NVTX_APP}, Environment({"LD_PRELOAD=" + kPreload, "BRRR_SHM=" + seg.name(),
                                          "NVTX_INJECTION64_PATH=/nonexistent/libtool.so"}),
                 true);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // No tool attached: NVTX's no-op answer to push and pop.
  EXPECT_NE(run.output.find("levels -2 -2 -2 -2 -2 -2 -2 -2\n"), std::string::npos) << run.output;
  size_t cuda_records = 0;
  for (const Segment::Ring& r : seg.Rings()) {
    for (const ring::HostRecord& rec : r.records) {
      EXPECT_FALSE(IsNvtx(rec)) << Describe(seg, rec);
      ++cuda_records;
    }
  }
  EXPECT_GT(cuda_records, 0u);  // the CUDA calls were still recorded
}

}  // namespace
}  // namespace brrr::shim
