// One list of frames per stack when stacks carry Python frames (ring_format.h: native return
// addresses, then tagged Python entries, innermost first). The interpreter's own native frames
// (those in the python executable or libpython3*.so*) are replaced by the Python frames they were
// running: at each native frame of the bytecode evaluator (_PyEval_EvalFrameDefault, in whatever
// module: an embedding application may link libpython statically) the next run of Python frames
// is emitted (a run ends at an entry frame, ring::kPythonEntryFrame), other
// interpreter frames are dropped, and runs left when the native walk stopped are appended at the
// end. A stack without Python entries keeps every native frame.
//
// Python frames read like native ones: "qualname (file.py:LINE)", "qualname (file.py)" when the
// line is unknown, "<unknown Python frame>" when the code object was not stored or is unreadable.
// The file is the basename, as native frames give theirs.
//
// Thread-safety: none; one owner. Must never: guess a line (an unknown version, truncated or
// damaged line table gives no line), or drop native frames of a stack with no Python frames.
#ifndef BRRR_COLLECTOR_SYMBOLIZE_MIXED_STACK_SYMBOLIZER_H_
#define BRRR_COLLECTOR_SYMBOLIZE_MIXED_STACK_SYMBOLIZER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/ingest/code_table.h"
#include "collector/symbolize/process_maps.h"
#include "collector/symbolize/python_line_table.h"
#include "collector/symbolize/symbolizer.h"

namespace brrr::symbolize {

// What the splicing needs to know of a native frame.
class NativeFrames {
 public:
  virtual ~NativeFrames() = default;
  // The formatted frame of the out-of-line function holding the address ("function (file:line)",
  // "function (module)", "0x... (module)").
  virtual std::string Frame(uint64_t return_address) = 0;
  // All frames of the address, innermost first, never empty: the frames of calls inlined there
  // (see Symbolizer::FramesAt), then the out-of-line function's. By default Frame alone.
  virtual std::vector<std::string> Frames(uint64_t return_address) {
    return {Frame(return_address)};
  }
  // Basename of the module holding the address ("" when unknown).
  virtual std::string Module(uint64_t return_address) = 0;
  // A frame of the profiler's own plumbing, left out of every stack.
  virtual bool IsProfilerPlumbing(uint64_t return_address) = 0;
};

// NativeFrames of a real process: the Symbolizer and the maps it uses.
class SymbolizerFrames : public NativeFrames {
 public:
  SymbolizerFrames(Symbolizer* symbolizer, const ProcessMaps* maps)
      : symbolizer_(symbolizer), maps_(maps) {}
  std::string Frame(uint64_t return_address) override;
  std::vector<std::string> Frames(uint64_t return_address) override;
  std::string Module(uint64_t return_address) override;
  bool IsProfilerPlumbing(uint64_t return_address) override;

 private:
  Symbolizer* symbolizer_;
  const ProcessMaps* maps_;
};

// True for the python executable ("python", "python3", "python3.12", ...) and libpython3*.so*.
bool IsInterpreterModule(const std::string& basename);
// True for a frame of the bytecode evaluator, which runs one run of Python frames. Of an address
// with inlined calls, the out-of-line function's frame (the last) is the one asked about.
bool IsEvaluatorFrame(const std::string& frame);

inline constexpr char kUnknownPythonFrame[] = "<unknown Python frame>";

class MixedStackSymbolizer {
 public:
  // `python_version`: the run's PY_VERSION_HEX (RunInfo), which says the line tables' format.
  MixedStackSymbolizer(NativeFrames* native, ingest::CodeTable* codes, uint32_t python_version);

  // Frames of one stack, innermost first.
  std::vector<std::string> Frames(const std::vector<uint64_t>& entries);
  // One Python entry's frame.
  const std::string& PythonFrame(uint64_t entry);

 private:
  NativeFrames* native_;
  ingest::CodeTable* codes_;
  std::optional<LineTableFormat> format_;
  absl::flat_hash_map<uint64_t, std::string> python_cache_;  // by entry, flag bits cleared
};

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_MIXED_STACK_SYMBOLIZER_H_
