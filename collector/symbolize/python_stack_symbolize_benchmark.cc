// What the collector's Python frame handling costs at the report's end: decoding one offset's
// line in each line-table format (a 400-line function, the offset at its end: the longest walk),
// and symbolizing a stack of 30 native and 30 Python frames, first time (codes read out of the
// segment, lines decoded) and cached.
//
// Must never: be mistaken for the shim's cost (that is shim/tests' python_stack_bench).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "collector/ingest/code_table.h"
#include "collector/symbolize/mixed_stack_symbolizer.h"
#include "collector/symbolize/python_line_table.h"
#include "collector/ingest/testing/test_segment.h"
#include "shim/segment_layout.h"

namespace brrr::symbolize {
namespace {

using ingest::ReaderStats;
using ingest::CodeTable;

constexpr int kLines = 400;

// One line per two-instruction statement, as CPython writes each format.
std::vector<uint8_t> Table(LineTableFormat format) {
  std::vector<uint8_t> t;
  for (int i = 0; i < kLines; ++i) {
    switch (format) {
      case LineTableFormat::kLnotab:
        t.insert(t.end(), {4, 1});  // 4 bytes, +1 line
        break;
      case LineTableFormat::kPep626:
        t.insert(t.end(), {4, 1});
        break;
      case LineTableFormat::kLocations:
        t.insert(t.end(), {0x80 | (11 << 3) | 1, 4, 9});  // one-line form, +1, two units
        break;
    }
  }
  return t;
}

void BM_PythonLine(benchmark::State& state) {
  const auto format = static_cast<LineTableFormat>(state.range(0));
  const std::vector<uint8_t> bytes = Table(format);
  const LineTable table{format, absl::MakeConstSpan(bytes), false, 1};
  const uint32_t offset = 4 * (kLines - 1);
  for (auto _ : state) benchmark::DoNotOptimize(PythonLine(table, offset));
  state.SetLabel(format == LineTableFormat::kLnotab   ? "3.9 lnotab"
                 : format == LineTableFormat::kPep626 ? "3.10 PEP 626"
                                                      : "3.11+ locations");
}
BENCHMARK(BM_PythonLine)->Arg(0)->Arg(1)->Arg(2);

class Natives : public NativeFrames {
 public:
  std::string Frame(uint64_t pc) override {
    return pc % 2 ? "_PyEval_EvalFrameDefault (python3.12)" : "native_function (lib.cc:10)";
  }
  std::string Module(uint64_t pc) override { return pc % 2 ? "python3.12" : "libapp.so"; }
  bool IsProfilerPlumbing(uint64_t) override { return false; }
};

void BM_SymbolizeMixedStack(benchmark::State& state) {
  const bool cached = state.range(0) != 0;
  ring::SegmentGeometry g = ingest::testing::SmallGeometry();
  g.code_slots = 64;
  ingest::testing::TestSegment seg(g);
  const std::vector<uint8_t> table = Table(LineTableFormat::kLocations);
  std::vector<uint64_t> stack;
  for (uint64_t i = 0; i < 30; ++i) stack.push_back(0x1000 + 2 * i + (i % 2));
  for (uint32_t i = 0; i < 30; ++i) {
    const uint32_t id =
        seg.AddCode("/srv/job/model.py", "Model.layer_" + std::to_string(i), 1, table);
    stack.push_back(ring::PythonFrameEntry(id, 4 * (kLines / 2), i % 2 == 1));
  }
  Natives natives;
  ReaderStats stats;
  CodeTable warm_codes(ring::CodeSlotsAt(seg.base(), seg.layout()), g.code_slots, &stats);
  MixedStackSymbolizer warm(&natives, &warm_codes, 0x030C01F0);
  for (auto _ : state) {
    if (cached) {
      benchmark::DoNotOptimize(warm.Frames(stack));
    } else {
      CodeTable codes(ring::CodeSlotsAt(seg.base(), seg.layout()), g.code_slots, &stats);
      MixedStackSymbolizer cold(&natives, &codes, 0x030C01F0);
      benchmark::DoNotOptimize(cold.Frames(stack));
    }
  }
  state.SetLabel(cached ? "cached" : "first time");
}
BENCHMARK(BM_SymbolizeMixedStack)->Arg(0)->Arg(1);

}  // namespace
}  // namespace brrr::symbolize

BENCHMARK_MAIN();
