// The Python pieces end to end inside the collector, from a segment to a report: the header's
// Python facts in RunInfo, stacks with tagged Python entries drained and symbolized through the
// reader's code table as the report's symbolization does, a stall and a sampled launch site that
// name the Python line, and the report's Python line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "collector/analysis/analysis.h"
#include "collector/symbolize/mixed_stack_symbolizer.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::symbolize {
namespace {

using ingest::SegmentReader;

using ::testing::ElementsAre;
using ingest::testing::MakeHostRecord;
using ingest::testing::TestSegment;

// Native frames of a Python process calling a CUDA extension.
class ExtensionFrames : public NativeFrames {
 public:
  std::string Frame(uint64_t pc) override { return Entry(pc).first; }
  std::string Module(uint64_t pc) override { return Entry(pc).second; }
  bool IsProfilerPlumbing(uint64_t) override { return false; }

 private:
  static std::pair<std::string, std::string> Entry(uint64_t pc) {
    static const std::map<uint64_t, std::pair<std::string, std::string>> frames = {
        {0x1000, {"Item (minitorch.cu:37)", "_minitorch.so"}},
        {0x1100, {"Launch (minitorch.cu:20)", "_minitorch.so"}},
        {0x2000, {"cfunction_vectorcall_NOARGS (python3.11)", "python3.11"}},
        {0x3000, {"_PyEval_EvalFrameDefault (python3.11)", "python3.11"}},
        {0x4000, {"main (python3.11)", "python3.11"}},
    };
    auto it = frames.find(pc);
    return it == frames.end() ? std::pair<std::string, std::string>{"0x? (?)", ""} : it->second;
  }
};

TEST(SegmentReaderPythonTest, RunInfoCarriesTheHeadersPythonFacts) {
  TestSegment seg;
  seg.header().python_status.store(static_cast<uint32_t>(ring::PythonStatus::kUnsupportedVersion));
  seg.header().python_version.store(0x030E00F0);
  seg.header().python_notes.store(ring::kPythonNoteBadMemory);
  seg.header().python_failures.store(5);
  seg.header().code_overflow.store(6);
  seg.header().launch_sample_period = 128;
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  const RunInfo info = (*reader)->ReadRunInfo();
  EXPECT_EQ(info.python_status, 2u);
  EXPECT_EQ(info.python_version, 0x030E00F0u);
  EXPECT_EQ(info.python_notes, ring::kPythonNoteBadMemory);
  EXPECT_EQ(info.python_failures, 5u);
  EXPECT_EQ(info.code_overflow, 6u);
  EXPECT_EQ(info.launch_sample_period, 128u);
}

TEST(SegmentReaderPythonTest, StallAndLaunchSiteNameThePythonLine) {
  TestSegment seg;
  seg.header().python_status.store(static_cast<uint32_t>(ring::PythonStatus::kActive));
  seg.header().python_version.store(0x030B07F0);
  seg.header().launch_sample_period = 50;
  // 3.11 location tables: log_loss bytes 0-7 line 31; train_step line 40; <module> line 50.
  const uint32_t log_loss =
      seg.AddCode("/job/train.py", "log_loss", 30, {0x80 | (11 << 3) | 3, 4, 9});
  const uint32_t forward =
      seg.AddCode("/job/model.py", "Model.forward", 11, {0x80 | (11 << 3) | 3, 4, 9});
  const uint32_t step = seg.AddCode("/job/train.py", "train_step", 40, {0x80 | (13 << 3) | 7, 0});
  const auto py = [](uint32_t code, uint32_t offset, bool entry) {
    return ring::PythonFrameEntry(code, offset, entry);
  };
  const uint32_t stall_stack =
      seg.AddStack({0x1000, 0x2000, 0x3000, 0x4000, py(log_loss, 4, false), py(step, 0, true)});
  const uint32_t launch_stack =
      seg.AddStack({0x1100, 0x2000, 0x3000, 0x4000, py(forward, 2, false), py(step, 2, true)});
  seg.ActivateThread(0, 10, 0x10);
  ring::HostRecord copy = MakeHostRecord(ring::Api::kCudaMemcpy, 1'000'000, 1'500'000);
  copy.copy_kind = static_cast<uint8_t>(ring::CopyKind::kDtoH);
  copy.host_memory = static_cast<uint8_t>(ring::HostMemory::kPageable);
  copy.bytes = 4;
  copy.stack_id = stall_stack;
  ASSERT_TRUE(seg.AppendHost(0, copy));
  for (uint64_t i = 0; i < 3; ++i) {
    ring::HostRecord launch = MakeHostRecord(ring::Api::kCudaLaunchKernel, 2'000'000 + i * 10'000,
                                             2'003'000 + i * 10'000);
    launch.stack_id = launch_stack;
    launch.flags = ring::kRecordLaunchSample;
    ASSERT_TRUE(seg.AppendHost(0, launch));
  }
  auto opened = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(opened.ok()) << opened.status();
  SegmentReader& reader = **opened;
  Analysis analysis;
  RunInfo info = reader.ReadRunInfo();
  info.start_ns = 1;
  info.end_ns = 3'000'000;
  analysis.SetRunInfo(info);
  reader.Drain(analysis);
  ExtensionFrames native;
  MixedStackSymbolizer frames(&native, &reader.codes(), info.python_version);
  const Report report = analysis.Finish([&](uint32_t id) -> std::vector<std::string> {
    const std::vector<uint64_t>* pcs = reader.stacks().Pcs(id);
    return pcs == nullptr ? std::vector<std::string>{} : frames.Frames(*pcs);
  });
  ASSERT_EQ(report.stalls.size(), 1u);
  EXPECT_THAT(
      report.stalls[0].stack,
      ElementsAre("Item (minitorch.cu:37)", "log_loss (train.py:31)", "train_step (train.py:40)"));
  ASSERT_EQ(report.launch_sites.size(), 1u);
  EXPECT_EQ(report.launch_sites[0].launches, 150u);
  EXPECT_THAT(report.launch_sites[0].stack,
              ElementsAre("Launch (minitorch.cu:20)", "Model.forward (model.py:12)",
                          "train_step (train.py:40)"));
  ASSERT_TRUE(report.python.has_value());
  EXPECT_EQ(report.python->status, "active");
  EXPECT_EQ(report.python->version, "3.11.7");
  EXPECT_EQ(report.python->note, "");
}

}  // namespace
}  // namespace brrr::symbolize
