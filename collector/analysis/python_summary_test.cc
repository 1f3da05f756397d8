// Tests for the report's Python line: each shim status said once, versions written as Python
// writes them, lost frames counted and explained.
#include "collector/analysis/python_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "shim/ring_format.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

RunInfo WithPython(ring::PythonStatus status, uint32_t version) {
  RunInfo info;
  info.python_status = static_cast<uint32_t>(status);
  info.python_version = version;
  return info;
}

TEST(PythonSummaryTest, VersionText) {
  EXPECT_EQ(PythonVersionText(0x030C01F0), "3.12.1");
  EXPECT_EQ(PythonVersionText(0x030E00A1), "3.14.0a1");
  EXPECT_EQ(PythonVersionText(0x030D00C2), "3.13.0rc2");
  EXPECT_EQ(PythonVersionText(0), "");
}

TEST(PythonSummaryTest, ActiveWithNothingLostSaysNothingMore) {
  const PythonFrames p = SummarizePython(WithPython(ring::PythonStatus::kActive, 0x030B07F0));
  EXPECT_EQ(p.status, "active");
  EXPECT_EQ(p.version, "3.11.7");
  EXPECT_EQ(p.frames_dropped, 0u);
  EXPECT_EQ(p.note, "");
}

TEST(PythonSummaryTest, TorchAnnotationsAreSaidWhenTorchWasSeen) {
  RunInfo info = WithPython(ring::PythonStatus::kActive, 0x030B07F0);
  EXPECT_EQ(SummarizePython(info).torch_annotations, "");
  info.torch_annotations = static_cast<uint32_t>(ring::TorchAnnotations::kActive);
  info.torch_version = "1.13.1";
  info.torch_reason = "ignored when active";
  PythonFrames p = SummarizePython(info);
  EXPECT_EQ(p.torch_annotations, "active");
  EXPECT_EQ(p.torch_version, "1.13.1");
  EXPECT_EQ(p.torch_reason, "");
  info.torch_annotations = static_cast<uint32_t>(ring::TorchAnnotations::kUnsupported);
  info.torch_reason = "";
  p = SummarizePython(info);
  EXPECT_EQ(p.torch_annotations, "unsupported");
  EXPECT_EQ(p.torch_reason, "no reason given");
  info.torch_annotations = static_cast<uint32_t>(ring::TorchAnnotations::kWriting);
  EXPECT_EQ(SummarizePython(info).torch_annotations, "");
}

TEST(PythonSummaryTest, NativeOnlyRunsSayWhy) {
  const PythonFrames none = SummarizePython(WithPython(ring::PythonStatus::kNoPython, 0));
  EXPECT_EQ(none.status, "none");
  EXPECT_EQ(none.note, "no Python in the process: native stacks only");
  const PythonFrames newer =
      SummarizePython(WithPython(ring::PythonStatus::kUnsupportedVersion, 0x030E00F0));
  EXPECT_EQ(newer.status, "unsupported_version");
  EXPECT_EQ(newer.version, "3.14.0");
  EXPECT_EQ(newer.note, "Python 3.14 is not supported (3.9 to 3.13 are): native stacks only");
  const PythonFrames ft =
      SummarizePython(WithPython(ring::PythonStatus::kFreeThreaded, 0x030D00F0));
  EXPECT_EQ(ft.status, "free_threaded");
  EXPECT_THAT(ft.note, HasSubstr("free-threaded Python 3.13"));
  EXPECT_THAT(ft.note, HasSubstr("native stacks only"));
  EXPECT_EQ(SummarizePython(WithPython(ring::PythonStatus::kDisabledByUser, 0)).status, "disabled");
  EXPECT_EQ(SummarizePython(WithPython(ring::PythonStatus::kNotInitialized, 0)).status,
            "not_initialized");
  const PythonFrames odd = SummarizePython(WithPython(static_cast<ring::PythonStatus>(77), 0));
  EXPECT_EQ(odd.status, "unknown");
  EXPECT_THAT(odd.note, HasSubstr("77"));
}

TEST(PythonSummaryTest, LostFramesAreCountedAndExplained) {
  RunInfo info = WithPython(ring::PythonStatus::kActive, 0x030C01F0);
  info.python_failures = 3;
  info.code_overflow = 4;
  info.python_notes = ring::kPythonNoteSubinterpreter | ring::kPythonNoteDepthCapped;
  const PythonFrames p = SummarizePython(info);
  EXPECT_EQ(p.frames_dropped, 7u);
  EXPECT_THAT(p.note, HasSubstr("3 captures lost their Python frames"));
  EXPECT_THAT(p.note, HasSubstr("4 Python frames unnamed"));
  EXPECT_THAT(p.note, HasSubstr("sub-interpreters"));
  EXPECT_THAT(p.note, HasSubstr("deeper than 32"));
}

}  // namespace
}  // namespace brrr
