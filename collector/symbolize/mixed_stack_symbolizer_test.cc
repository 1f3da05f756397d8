// Tests for MixedStackSymbolizer: Python runs spliced where the evaluator's native frames are,
// other interpreter frames dropped, leftovers appended, native-only stacks untouched, unknown
// code and lines said as such; and stall rows merging by the merged stack.
#include "collector/symbolize/mixed_stack_symbolizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "collector/analysis/api_stats.h"
#include "collector/analysis/stall_stats.h"
#include "collector/ingest/testing/test_segment.h"
#include "shim/segment_layout.h"

namespace brrr::symbolize {
namespace {

using ingest::ReaderStats;
using ingest::CodeTable;

using ::testing::ElementsAre;

// Native frames from a table: pc -> (frame, module).
class FakeNativeFrames : public NativeFrames {
 public:
  void Add(uint64_t pc, std::string frame, std::string module) {
    frames_[pc] = {std::move(frame), std::move(module)};
  }
  std::string Frame(uint64_t pc) override { return frames_.at(pc).first; }
  std::string Module(uint64_t pc) override { return frames_.at(pc).second; }
  bool IsProfilerPlumbing(uint64_t pc) override { return frames_.at(pc).second == "libbrrr.so"; }

 private:
  std::map<uint64_t, std::pair<std::string, std::string>> frames_;
};

constexpr uint32_t kPython312 = 0x030C01F0;

// Native addresses.
enum : uint64_t {
  kHook = 0x1000,        // libbrrr.so: plumbing
  kCudart = 0x2000,      // cudaMemcpy (libcudart.so.13)
  kItem = 0x3000,        // Item (minitorch.cu:37)
  kVectorcall = 0x4000,  // cfunction_vectorcall_NOARGS (python3.12)
  kCall = 0x4100,        // cfunction_call (python3.12): another native path to the same line
  kEval1 = 0x5000,       // _PyEval_EvalFrameDefault (python3.12), innermost
  kFunction = 0x6000,    // _PyFunction_Vectorcall (libpython3.12.so.1.0)
  kEval2 = 0x7000,       // _PyEval_EvalFrameDefault (libpython3.12.so.1.0)
  kMain = 0x8000,        // main (python3.12)
  kLibc = 0x9000,        // __libc_start_call_main (libc.so.6)
};

class MixedStackSymbolizerTest : public ::testing::Test {
 protected:
  MixedStackSymbolizerTest() {
    native_.Add(kHook, "brrr::HookedMemcpy (hooks.cc:10)", "libbrrr.so");
    native_.Add(kCudart, "cudaMemcpy (libcudart.so.13)", "libcudart.so.13");
    native_.Add(kItem, "Item (minitorch.cu:37)", "_minitorch.cpython-312-x86_64-linux-gnu.so");
    native_.Add(kVectorcall, "cfunction_vectorcall_NOARGS (python3.12)", "python3.12");
    native_.Add(kCall, "cfunction_call (python3.12)", "python3.12");
    native_.Add(kEval1, "_PyEval_EvalFrameDefault (python3.12)", "python3.12");
    native_.Add(kFunction, "_PyFunction_Vectorcall (libpython3.12.so.1.0)", "libpython3.12.so.1.0");
    native_.Add(kEval2, "_PyEval_EvalFrameDefault (ceval.c:700)", "libpython3.12.so.1.0");
    native_.Add(kMain, "main (python3.12)", "python3.12");
    native_.Add(kLibc, "__libc_start_call_main (libc.so.6)", "libc.so.6");
    // Location tables (3.11+): log_loss starts at line 30; bytes 0-7 are line 31 (code 11, four
    // code units), bytes 8-9 line 33 (code 12, one unit).
    log_loss_ = seg_.AddCode("/srv/job/train.py", "Trainer.log_loss", 30,
                             {0x80 | (11 << 3) | 3, 4, 9, 0x80 | (12 << 3) | 0, 4, 9});
    // step: line 40 everywhere (code 13 = no columns, delta 0, eight units).
    step_ = seg_.AddCode("/srv/job/train.py", "step", 40, {0x80 | (13 << 3) | 7, 0});
    module_ = seg_.AddCode("/srv/job/train.py", "<module>", 1,
                           {0x80 | (13 << 3) | 7, 0x62, 0x01});  // +49 (two varint bytes): 50
  }

  CodeTable Codes() {
    return CodeTable(ring::CodeSlotsAt(seg_.base(), seg_.layout()), seg_.geometry().code_slots,
                     &stats_);
  }
  static uint64_t Py(uint32_t code, uint32_t offset, bool entry) {
    return ring::PythonFrameEntry(code, offset, entry);
  }

  ingest::testing::TestSegment seg_;
  ReaderStats stats_;
  FakeNativeFrames native_;
  uint32_t log_loss_ = 0, step_ = 0, module_ = 0;
};

TEST_F(MixedStackSymbolizerTest, PythonRunsReplaceTheInterpreterFrames) {
  CodeTable codes = Codes();
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  // 3.12: log_loss is called from step within one evaluator call (step is the entry frame);
  // <module> runs in the outer evaluator call.
  const std::vector<std::string> frames =
      symbolizer.Frames({kHook, kCudart, kItem, kVectorcall, kEval1, kFunction, kEval2, kMain,
                         kLibc, Py(log_loss_, 2, false), Py(step_, 6, true), Py(module_, 0, true)});
  EXPECT_THAT(frames, ElementsAre("cudaMemcpy (libcudart.so.13)", "Item (minitorch.cu:37)",
                                  "Trainer.log_loss (train.py:31)", "step (train.py:40)",
                                  "<module> (train.py:50)", "__libc_start_call_main (libc.so.6)"));
}

TEST_F(MixedStackSymbolizerTest, RunsLeftWhereTheNativeWalkStoppedAreAppended) {
  CodeTable codes = Codes();
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  // The native walk stopped inside the interpreter, after one evaluator frame.
  EXPECT_THAT(
      symbolizer.Frames({kCudart, kItem, kVectorcall, kEval1, kFunction, Py(log_loss_, 8, false),
                         Py(step_, 0, true), Py(module_, 0, true)}),
      ElementsAre("cudaMemcpy (libcudart.so.13)", "Item (minitorch.cu:37)",
                  "Trainer.log_loss (train.py:33)", "step (train.py:40)",
                  "<module> (train.py:50)"));
  // No evaluator frame recognized at all (a stripped interpreter): every run goes at the end.
  EXPECT_THAT(symbolizer.Frames({kItem, kVectorcall, kMain, kLibc, Py(step_, 0, true)}),
              ElementsAre("Item (minitorch.cu:37)", "__libc_start_call_main (libc.so.6)",
                          "step (train.py:40)"));
}

TEST_F(MixedStackSymbolizerTest, AnInterpreterLinkedIntoTheApplicationIsSplicedAtItsEvaluator) {
  // An application embedding CPython statically: the evaluator is in the app's own executable.
  native_.Add(0xA000, "_PyEval_EvalFrameDefault (ceval.c:900)", "inference_server");
  native_.Add(0xB000, "PyObject_Call (call.c:10)", "inference_server");
  native_.Add(0xC000, "Server::Handle(Request const&) (server.cc:77)", "inference_server");
  CodeTable codes = Codes();
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  EXPECT_THAT(
      symbolizer.Frames({kItem, 0xA000, 0xB000, 0xC000, Py(step_, 0, true)}),
      ElementsAre("Item (minitorch.cu:37)", "step (train.py:40)", "PyObject_Call (call.c:10)",
                  "Server::Handle(Request const&) (server.cc:77)"));
}

TEST_F(MixedStackSymbolizerTest, StacksWithoutPythonFramesKeepEveryNativeFrame) {
  CodeTable codes = Codes();
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  EXPECT_THAT(symbolizer.Frames({kHook, kItem, kVectorcall, kEval1, kMain}),
              ElementsAre("Item (minitorch.cu:37)", "cfunction_vectorcall_NOARGS (python3.12)",
                          "_PyEval_EvalFrameDefault (python3.12)", "main (python3.12)"));
}

TEST_F(MixedStackSymbolizerTest, AStackOfPlumbingAloneKeepsItsOutermostFrameNamedByModule) {
  CodeTable codes = Codes();
  native_.Add(0xA100, "brrr::RecordCall (api_callback.cc:120)", "libbrrr.so");
  native_.Add(0xA200, "brrr::OnApiCallback (api_callback.cc:160)", "libbrrr.so");
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  // Where the unwind stopped, by module (not by line: the report classifies it by module).
  EXPECT_THAT(symbolizer.Frames({kHook, 0xA100, 0xA200}),
              ElementsAre("brrr::OnApiCallback (libbrrr.so)"));
  EXPECT_THAT(symbolizer.Frames({}), ElementsAre());
}

TEST_F(MixedStackSymbolizerTest, UnknownCodeAndUnknownLinesAreSaidAsSuch) {
  const uint32_t not_ready = seg_.AddCode("/x/late.py", "late", 1, {}, /*ready=*/false);
  CodeTable codes = Codes();
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  EXPECT_THAT(symbolizer.Frames({kItem, Py(0, 0, false), Py(not_ready, 0, false),
                                 Py(99999, 0, false), Py(log_loss_, 400, true)}),
              ElementsAre("Item (minitorch.cu:37)", "<unknown Python frame>",
                          "<unknown Python frame>", "<unknown Python frame>",
                          // offset beyond the table: the function, no line
                          "Trainer.log_loss (train.py)"));
  // An interpreter whose line tables brrr cannot read: names without lines, never a guess.
  CodeTable codes2 = Codes();
  MixedStackSymbolizer unknown_version(&native_, &codes2, 0x030E00F0);
  EXPECT_THAT(unknown_version.Frames({Py(log_loss_, 2, true)}),
              ElementsAre("Trainer.log_loss (train.py)"));
}

TEST(InterpreterModuleTest, PythonExecutablesAndLibpython) {
  EXPECT_TRUE(IsInterpreterModule("python"));
  EXPECT_TRUE(IsInterpreterModule("python3"));
  EXPECT_TRUE(IsInterpreterModule("python3.11"));
  EXPECT_TRUE(IsInterpreterModule("python3.12d"));
  EXPECT_TRUE(IsInterpreterModule("libpython3.13.so.1.0"));
  EXPECT_FALSE(IsInterpreterModule("python_helper.so"));
  EXPECT_FALSE(IsInterpreterModule("_minitorch.cpython-312-x86_64-linux-gnu.so"));
  EXPECT_FALSE(IsInterpreterModule("libc.so.6"));
  EXPECT_TRUE(IsEvaluatorFrame("_PyEval_EvalFrameDefault (ceval.c:10)"));
  EXPECT_TRUE(IsEvaluatorFrame("_PyEval_EvalFrameDefault.cold (python3.11)"));
  EXPECT_FALSE(IsEvaluatorFrame("_PyEval_EvalFrameDefaultX (python3.11)"));
}

TEST_F(MixedStackSymbolizerTest, StallRowsMergeByTheMergedStack) {
  // Three stack ids: two native paths into the interpreter (vectorcall / call) and two offsets
  // of line 31. All read "log_loss (train.py:31)" once spliced: one stall row.
  CodeTable codes = Codes();
  MixedStackSymbolizer symbolizer(&native_, &codes, kPython312);
  const std::map<uint32_t, std::vector<uint64_t>> stacks = {
      {1, {kItem, kVectorcall, kEval1, kMain, Py(log_loss_, 0, false), Py(step_, 0, true)}},
      {2, {kItem, kCall, kFunction, kEval1, kMain, Py(log_loss_, 0, false), Py(step_, 0, true)}},
      {3, {kItem, kVectorcall, kEval1, kMain, Py(log_loss_, 6, false), Py(step_, 0, true)}},
      {4, {kItem, kVectorcall, kEval1, kMain, Py(log_loss_, 8, false), Py(step_, 0, true)}},
  };
  StallStats stalls;
  ApiStats names;
  const CallKey memcpy = ApiStats::KeyForApi(Api::kCudaMemcpy);
  for (const auto& [id, unused] : stacks) stalls.Add(memcpy, StallReason::kD2hCopy, id, 100 * id);
  const std::vector<Stall> top =
      stalls.Top(20, names, [&](uint32_t id) { return symbolizer.Frames(stacks.at(id)); });
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].calls, 3u);
  EXPECT_EQ(top[0].total_ns, 600);
  EXPECT_THAT(top[0].stack, ElementsAre("Item (minitorch.cu:37)", "Trainer.log_loss (train.py:31)",
                                        "step (train.py:40)"));
  EXPECT_EQ(top[1].stack[1], "Trainer.log_loss (train.py:33)");
}

}  // namespace
}  // namespace brrr::symbolize
