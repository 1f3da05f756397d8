// The report's Python line (see python_summary.h).
//
// Must never: trust the status or notes to be in range (an unknown value is said as unknown).
#include "collector/analysis/python_summary.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shim/ring_format.h"

namespace brrr {
namespace {

// Minor versions whose line tables the collector reads.
bool LinesReadable(uint32_t version_hex) {
  const uint32_t minor = (version_hex >> 16) & 0xFF;
  return (version_hex >> 24) == 3 && minor >= 9 && minor <= 13;
}

std::string MinorText(uint32_t version_hex) {
  if (version_hex == 0) return "CPython";
  return absl::StrCat("Python ", version_hex >> 24, ".", (version_hex >> 16) & 0xFF);
}

}  // namespace

std::string PythonVersionText(uint32_t v) {
  if (v == 0) return "";
  std::string text = absl::StrCat(v >> 24, ".", (v >> 16) & 0xFF, ".", (v >> 8) & 0xFF);
  const uint32_t level = (v >> 4) & 0xF;
  const uint32_t serial = v & 0xF;
  if (level == 0xA) absl::StrAppend(&text, "a", serial);
  if (level == 0xB) absl::StrAppend(&text, "b", serial);
  if (level == 0xC) absl::StrAppend(&text, "rc", serial);
  return text;
}

PythonFrames SummarizePython(const RunInfo& info) {
  PythonFrames p;
  p.version = PythonVersionText(info.python_version);
  using ring::TorchAnnotations;
  if (info.torch_annotations == static_cast<uint32_t>(TorchAnnotations::kActive) ||
      info.torch_annotations == static_cast<uint32_t>(TorchAnnotations::kUnsupported)) {
    const bool active = info.torch_annotations == static_cast<uint32_t>(TorchAnnotations::kActive);
    p.torch_annotations = active ? "active" : "unsupported";
    p.torch_version = info.torch_version;
    p.torch_reason = active                      ? ""
                     : info.torch_reason.empty() ? "no reason given"
                                                 : info.torch_reason;
  }
  uint64_t dropped = 0;
  if (__builtin_add_overflow(info.python_failures, info.code_overflow, &dropped)) {
    dropped = UINT64_MAX;
  }
  p.frames_dropped = dropped;
  using ring::PythonStatus;
  switch (static_cast<PythonStatus>(info.python_status)) {
    case PythonStatus::kNoPython:
      p.status = "none";
      p.note = "no Python in the process: native stacks only";
      return p;
    case PythonStatus::kUnsupportedVersion:
      p.status = "unsupported_version";
      p.note = absl::StrCat(MinorText(info.python_version),
                            " is not supported (3.9 to 3.13 are): native stacks only");
      return p;
    case PythonStatus::kFreeThreaded:
      p.status = "free_threaded";
      p.note = absl::StrCat("free-threaded ", MinorText(info.python_version),
                            " (no GIL) is not supported: native stacks only");
      return p;
    case PythonStatus::kDisabledByUser:
      p.status = "disabled";
      p.note = "Python frames turned off (BRRR_PYTHON=0 or stacks off): native stacks only";
      return p;
    case PythonStatus::kNotInitialized:
      p.status = "not_initialized";
      p.note = "CPython was not initialized when CUDA started: native stacks only";
      return p;
    case PythonStatus::kActive:
      break;
    default:
      p.status = "unknown";
      p.note = absl::StrCat("the profiler reported an unknown Python status (", info.python_status,
                            "): stacks may lack Python frames");
      return p;
  }
  p.status = "active";
  std::vector<std::string> notes;
  if (!LinesReadable(info.python_version)) {
    notes.push_back(absl::StrCat("line tables of ", MinorText(info.python_version),
                                 " cannot be read: Python frames without lines"));
  }
  if (info.python_failures > 0) {
    notes.push_back(absl::StrCat(info.python_failures,
                                 " captures lost their Python frames (native frames kept)"));
  }
  if (info.code_overflow > 0) {
    notes.push_back(
        absl::StrCat(info.code_overflow, " Python frames unnamed: the code table was full"));
  }
  if (info.python_notes & ring::kPythonNoteSubinterpreter) {
    notes.push_back("threads of sub-interpreters have native stacks only");
  }
  if (info.python_notes & ring::kPythonNoteBadMemory) {
    notes.push_back("frame chains that did not look as expected were dropped");
  }
  if (info.python_notes & ring::kPythonNoteDepthCapped) {
    notes.push_back(absl::StrCat("stacks deeper than ", ring::kMaxPythonDepth,
                                 " Python frames lost their outer frames"));
  }
  p.note = absl::StrJoin(notes, "; ");
  return p;
}

}  // namespace brrr
