// Time to write a report as brrr.report/1 JSON (compact, as stored in .brrr files) and to read it
// back with the strict reader: the sample report, and the sample with its API, kernel, stall and
// phase lists grown to N rows each (a large report). Not a test: run brrr_format_benchmark.
//
// Must never: be registered with ctest.
#include <string>

#include "benchmark/benchmark.h"
#include "viewer/format/report_json.h"
#include "viewer/format/sample_report.h"

namespace brrr {
namespace {

// The sample with each list grown to `rows` rows (copies of its first row, names numbered).
Report LargeReport(int rows) {
  Report r = SampleReport();
  const ApiStat api = r.api.at(0);
  const KernelStat kernel = r.kernels.top.at(0);
  const Stall stall = r.stalls.at(0);
  const Phase phase = r.phases.at(0);
  for (int i = static_cast<int>(r.api.size()); i < rows; ++i) {
    r.api.emplace_back(api).name += std::to_string(i);
    r.kernels.top.emplace_back(kernel).name += std::to_string(i);
    r.stalls.emplace_back(stall).api += std::to_string(i);
    r.phases.emplace_back(phase).name += std::to_string(i);
  }
  return r;
}

Report ReportFor(int rows) { return rows == 0 ? SampleReport() : LargeReport(rows); }

void BM_EncodeCompact(benchmark::State& state) {
  const Report report = ReportFor(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string json = RenderJsonCompact(report);
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_EncodeCompact)->Arg(0)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_Decode(benchmark::State& state) {
  const std::string json = RenderJsonCompact(ReportFor(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    absl::StatusOr<Report> report = ParseReportJson(json);
    if (!report.ok()) state.SkipWithError("the rendered report did not parse");
    benchmark::DoNotOptimize(report);
  }
  state.counters["bytes"] = static_cast<double>(json.size());
}
BENCHMARK(BM_Decode)->Arg(0)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace brrr

BENCHMARK_MAIN();
