// End-to-end tests of libbrrr.so preloaded into an nvcc-built program running on the simulated
// device: the program's output and exit status are unchanged by the shim, and in `brrr run` mode
// (BRRR_SHM naming a segment this test created, as the collector would) the segment holds exactly
// the expected records; a tiny ring drops records into the counters without blocking.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "shim/segment.h"

extern char** environ;

namespace brrr::shim {
namespace {

struct RunResult {
  int pid = 0;
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

std::string ReadAll(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) s.append(buf, static_cast<size_t>(n));
  return s;
}

// Runs the app with the test's environment minus LD_PRELOAD/BRRR_*, plus `extra`.
RunResult RunApp(const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string s(*e);
    if (s.rfind("LD_PRELOAD=", 0) == 0 || s.rfind("BRRR_", 0) == 0) continue;
    env_strings.push_back(s);
  }
  env_strings.push_back(std::string("LD_LIBRARY_PATH=") + SIMCUDA_LIB_DIR);
  env_strings.push_back("BRRR_SIM_LAUNCH_NS=1000");
  env_strings.push_back("BRRR_SIM_KERNEL_NS=2000");
  for (const auto& [k, v] : extra) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = {BRRR_E2E_APP};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  EXPECT_EQ(pipe(out_pipe), 0);
  EXPECT_EQ(pipe(err_pipe), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  pid_t pid = 0;
  RunResult r;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    ADD_FAILURE() << "posix_spawn: " << strerror(rc);
    return r;
  }
  // Small outputs: reading stdout fully before stderr cannot deadlock here.
  r.out = ReadAll(out_pipe[0]);
  r.err = ReadAll(err_pipe[0]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.pid = pid;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// A segment created the way `brrr run`'s collector creates one.
class CollectorSegment {
 public:
  explicit CollectorSegment(const ring::SegmentGeometry& g) {
    name_ = "/brrr-shimtest-" + std::to_string(getpid()) + "-" + std::to_string(counter_++);
    const int fd = shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return;
    bytes_ = ring::ComputeLayout(g).segment_size;
    if (ftruncate(fd, static_cast<off_t>(bytes_)) != 0) return;
    base_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    ok_ = base_ != MAP_FAILED && InitSegmentMemory(base_, bytes_, g, &view_);
  }
  ~CollectorSegment() {
    if (base_ != nullptr && base_ != MAP_FAILED) munmap(base_, bytes_);
    shm_unlink(name_.c_str());
  }
  bool ok() const { return ok_; }
  const std::string& name() const { return name_; }
  const SegmentView& view() const { return view_; }

  // Every host record of every claimed ring (no reader ran: nothing was consumed).
  std::vector<ring::HostRecord> HostRecords() const {
    std::vector<ring::HostRecord> out;
    for (uint32_t i = 0; i < view_.geometry.max_threads; ++i) {
      ring::RingHeader* r = ring::ThreadRingAt(view_.base, view_.layout, i);
      if (r->state.load() == static_cast<uint32_t>(ring::RingState::kFree)) continue;
      const uint64_t w = r->write_index.load(std::memory_order_acquire);
      const uint64_t cap = view_.geometry.ring_capacity;
      for (uint64_t k = (w > cap ? w - cap : 0); k < w; ++k) {
        out.push_back(ring::ThreadRecords(r)[k & (cap - 1)]);
      }
    }
    return out;
  }

 private:
  static inline int counter_ = 0;
  std::string name_;
  void* base_ = nullptr;
  uint64_t bytes_ = 0;
  bool ok_ = false;
  SegmentView view_;
};

// In sanitizer builds the ASan runtime must come first in the process, before the shim.
const std::string kPreload = std::string(BRRR_PRELOAD_PREFIX) + BRRR_SHIM_PATH;

bool IsLaunch(uint16_t api) {
  return api == static_cast<uint16_t>(ring::Api::kCudaLaunchKernelInternal) ||
         api == static_cast<uint16_t>(ring::Api::kCudaLaunchKernel);
}

TEST(ShimEndToEndTest, OutputAndExitStatusUnchangedByPreload) {
  const RunResult plain = RunApp({"20", "2", "3"}, {});
  ASSERT_EQ(plain.status, 3) << plain.err;
  ASSERT_NE(plain.out.find("done"), std::string::npos);
  CollectorSegment seg(ring::SegmentGeometry{});
  ASSERT_TRUE(seg.ok());
  const RunResult shimmed =
      RunApp({"20", "2", "3"}, {{"LD_PRELOAD", kPreload}, {"BRRR_SHM", seg.name()}});
  EXPECT_EQ(shimmed.status, 3) << shimmed.err;
  EXPECT_EQ(shimmed.out, plain.out);
}

TEST(ShimEndToEndTest, PlainPreloadModeLeavesTheAppAlone) {
  // No BRRR_SHM: the shim creates its own segment (and starts `brrr` if it sits next to it).
  const RunResult plain = RunApp({"5", "0", "0"}, {});
  const std::string output =
      ::testing::TempDir() + "shim-e2e-" + std::to_string(getpid()) + ".brrr";
  const RunResult shimmed = RunApp({"5", "0", "0"}, {{"LD_PRELOAD", kPreload},
                                                     {"BRRR_REPORT_WAIT_MS", "3000"},
                                                     {"BRRR_QUIET", "1"},
                                                     {"BRRR_OUTPUT", output}});
  EXPECT_EQ(shimmed.status, plain.status) << shimmed.err;
  EXPECT_EQ(shimmed.out, plain.out);
  unlink(output.c_str());
  // Without a collector the segment stays for a later `brrr attach`: clean it up here.
  const std::string prefix = "brrr-" + std::to_string(shimmed.pid) + "-";
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d)) {
      if (std::string(e->d_name).rfind(prefix, 0) == 0)
        shm_unlink(("/" + std::string(e->d_name)).c_str());
    }
    closedir(d);
  }
}

TEST(ShimEndToEndTest, SegmentHoldsTheExpectedRecords) {
  constexpr int kLaunches = 50;
  constexpr int kWorkers = 3;
  CollectorSegment seg(ring::SegmentGeometry{});
  ASSERT_TRUE(seg.ok());
  const RunResult r = RunApp({std::to_string(kLaunches), std::to_string(kWorkers), "7"},
                             {{"LD_PRELOAD", kPreload}, {"BRRR_SHM", seg.name()}});
  ASSERT_EQ(r.status, 7) << r.err;
  const ring::SegmentHeader* h = seg.view().header;
  EXPECT_EQ(h->finished.load(), 1u);
  EXPECT_EQ(h->exit_code_valid.load(), 1u);
  EXPECT_EQ(h->exit_code.load(), 7);
  EXPECT_NE(h->pid, 0u);
  EXPECT_NE(h->flags & ring::kFlagStacks, 0u);
  EXPECT_GT(h->end_mono_ns.load(), h->start_mono_ns);
  EXPECT_NE(std::string(h->command).find("shim_e2e_app"), std::string::npos);

  const std::vector<ring::HostRecord> records = seg.HostRecords();
  int launches = 0, stacks = 0;
  int h2d_pageable = 0, d2h_pinned = 0, mallocs = 0, frees = 0;
  for (const ring::HostRecord& rec : records) {
    EXPECT_LE(rec.enter, rec.exit);
    EXPECT_EQ(rec.result, 0);
    if (IsLaunch(rec.api)) {
      ++launches;
      EXPECT_NE(rec.target, 0u);
      EXPECT_NE(rec.flags & ring::kRecordLegacyStream, 0u);
      if (rec.stack_id != 0) ++stacks;
    }
    if (rec.api == static_cast<uint16_t>(ring::Api::kCudaMemcpy)) {
      EXPECT_EQ(rec.bytes, 1024 * sizeof(float));
      EXPECT_EQ(rec.copy_kind, static_cast<uint8_t>(ring::CopyKind::kHtoD));
      if (rec.host_memory == static_cast<uint8_t>(ring::HostMemory::kPageable)) ++h2d_pageable;
    }
    if (rec.api == static_cast<uint16_t>(ring::Api::kCudaMemcpyAsync)) {
      EXPECT_EQ(rec.copy_kind, static_cast<uint8_t>(ring::CopyKind::kDtoH));
      if (rec.host_memory == static_cast<uint8_t>(ring::HostMemory::kPinned)) ++d2h_pinned;
    }
    // cuda_runtime.h's cudaMallocHost(T**, size_t) template calls cudaHostAlloc.
    if (rec.api == static_cast<uint16_t>(ring::Api::kCudaMalloc) ||
        rec.api == static_cast<uint16_t>(ring::Api::kCudaHostAlloc)) {
      ++mallocs;
      EXPECT_NE(rec.target, 0u);
    }
    if (rec.api == static_cast<uint16_t>(ring::Api::kCudaFree) ||
        rec.api == static_cast<uint16_t>(ring::Api::kCudaFreeHost)) {
      ++frees;
    }
  }
  EXPECT_EQ(launches, kLaunches * (1 + kWorkers));
  EXPECT_EQ(stacks, launches);
  EXPECT_EQ(h2d_pageable, 1);
  EXPECT_EQ(d2h_pinned, 1);
  EXPECT_EQ(mallocs, 2);
  EXPECT_EQ(frees, 2);
  EXPECT_EQ(records.size(), static_cast<size_t>(kLaunches + 8 + kWorkers * (kLaunches + 1)));

  // One ring per calling thread; worker rings retired at thread exit.
  int active = 0, retired = 0;
  for (uint32_t i = 0; i < seg.view().geometry.max_threads; ++i) {
    const uint32_t s = ring::ThreadRingAt(seg.view().base, seg.view().layout, i)->state.load();
    active += s == static_cast<uint32_t>(ring::RingState::kActive);
    retired += s == static_cast<uint32_t>(ring::RingState::kRetired);
  }
  EXPECT_EQ(active, 1);
  EXPECT_EQ(retired, kWorkers);

  // With the simulated CUPTI, every launch has its kernel record in the device ring.
  if ((h->flags & ring::kFlagCuptiActive) != 0) {
    ring::RingHeader* dr = ring::DeviceRingAt(seg.view().base, seg.view().layout);
    const uint64_t w = dr->write_index.load(std::memory_order_acquire);
    int kernels = 0;
    for (uint64_t k = 0; k < w && k < seg.view().geometry.device_capacity; ++k) {
      const ring::DeviceRecord& d = ring::DeviceRecords(dr)[k];
      if (d.kind == static_cast<uint8_t>(ring::DeviceKind::kKernel)) {
        ++kernels;
        EXPECT_NE(d.name_id, 0u);
      }
    }
    EXPECT_EQ(kernels, kLaunches * (1 + kWorkers));
  } else {
    ADD_FAILURE() << "CUPTI not active (host_only_reason " << h->host_only_reason << "): " << r.err;
  }
}

// Device records and CUPTI API records of the segment's device ring.
std::vector<ring::DeviceRecord> DeviceRecordsOf(CollectorSegment& seg) {
  std::vector<ring::DeviceRecord> out;
  ring::RingHeader* dr = ring::DeviceRingAt(seg.view().base, seg.view().layout);
  const uint64_t w = dr->write_index.load(std::memory_order_acquire);
  for (uint64_t k = 0; k < w && k < seg.view().geometry.device_capacity; ++k) {
    out.push_back(ring::DeviceRecords(dr)[k]);
  }
  return out;
}

// Each hooked launch's record carries the correlation id of the driver call inside it, which is
// its kernel's and its RUNTIME record's; with BRRR_LAUNCH_RECORDS=0 CUPTI writes no RUNTIME record
// for launches. A copy carries its id too and keeps its RUNTIME record either way.
TEST(ShimEndToEndTest, HookedLaunchesCarryTheirKernelsIdsAndCanGoWithoutRuntimeRecords) {
  constexpr int kLaunches = 50;
  for (const char* launch_records : {"1", "0"}) {
    SCOPED_TRACE(std::string("BRRR_LAUNCH_RECORDS=") + launch_records);
    CollectorSegment seg(ring::SegmentGeometry{});
    ASSERT_TRUE(seg.ok());
    const RunResult r =
        RunApp({std::to_string(kLaunches), "0", "0"}, {{"LD_PRELOAD", kPreload},
                                                       {"BRRR_SHM", seg.name()},
                                                       {"BRRR_LAUNCH_RECORDS", launch_records}});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(seg.view().header->flags & ring::kFlagCuptiActive, 0u);
    std::map<uint32_t, int> kernel_ids, runtime_ids;
    for (const ring::DeviceRecord& d : DeviceRecordsOf(seg)) {
      if (d.kind == static_cast<uint8_t>(ring::DeviceKind::kKernel)) ++kernel_ids[d.correlation_id];
      if (d.kind == static_cast<uint8_t>(ring::DeviceKind::kRuntimeApi)) {
        ++runtime_ids[d.correlation_id];
      }
    }
    int launches = 0, copies_with_id = 0;
    for (const ring::HostRecord& rec : seg.HostRecords()) {
      const bool carries = (rec.flags & ring::kRecordCorrelationFromDriver) != 0;
      EXPECT_EQ(carries, rec.correlation_id != 0);
      if (IsLaunch(rec.api)) {
        ++launches;
        ASSERT_TRUE(carries) << "launch " << launches;
        EXPECT_EQ(kernel_ids[rec.correlation_id], 1) << "id " << rec.correlation_id;
        EXPECT_EQ(runtime_ids.count(rec.correlation_id), launch_records[0] == '1' ? 1u : 0u);
      } else if (rec.api == static_cast<uint16_t>(ring::Api::kCudaMemcpyAsync) ||
                 rec.api == static_cast<uint16_t>(ring::Api::kCudaMemcpy)) {
        ASSERT_TRUE(carries);
        ++copies_with_id;
        EXPECT_EQ(runtime_ids.count(rec.correlation_id), 1u);  // copies keep their records
      } else if (rec.api == static_cast<uint16_t>(ring::Api::kCudaMalloc)) {
        EXPECT_FALSE(carries);  // no driver call of brrr's callbacks inside
      }
    }
    EXPECT_EQ(launches, kLaunches);
    EXPECT_EQ(copies_with_id, 2);
  }
}

TEST(ShimEndToEndTest, TinyRingDropsIntoTheCounters) {
  constexpr int kLaunches = 500;
  ring::SegmentGeometry g;
  g.ring_capacity = 64;
  CollectorSegment seg(g);
  ASSERT_TRUE(seg.ok());
  const RunResult r = RunApp({std::to_string(kLaunches), "0", "0"},
                             {{"LD_PRELOAD", kPreload}, {"BRRR_SHM", seg.name()}});
  ASSERT_EQ(r.status, 0) << r.err;
  ring::RingHeader* ring0 = ring::ThreadRingAt(seg.view().base, seg.view().layout, 0);
  EXPECT_EQ(ring0->write_index.load(), 64u);
  EXPECT_EQ(ring0->write_index.load() + ring0->dropped.load(), uint64_t{kLaunches} + 8);
  EXPECT_EQ(seg.view().header->finished.load(), 1u);
}

TEST(ShimEndToEndTest, TooManyThreadsAreCountedAsOverflow) {
  ring::SegmentGeometry g;
  g.max_threads = 2;
  CollectorSegment seg(g);
  ASSERT_TRUE(seg.ok());
  constexpr int kLaunches = 10;
  const RunResult r = RunApp({std::to_string(kLaunches), "3", "0"},
                             {{"LD_PRELOAD", kPreload}, {"BRRR_SHM", seg.name()}});
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t total = kLaunches + 8 + 3 * (kLaunches + 1);
  uint64_t recorded = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    recorded += ring::ThreadRingAt(seg.view().base, seg.view().layout, i)->write_index.load();
  }
  EXPECT_GT(seg.view().header->threads_overflow_dropped.load(), 0u);
  EXPECT_EQ(recorded + seg.view().header->threads_overflow_dropped.load(), total);
}

}  // namespace
}  // namespace brrr::shim
