// libFuzzer target: arbitrary bytes into ParseBrrrFile and ParseBrrrContents (which also decodes
// the trace section). Whatever parses must also render (text, JSON and a pprof profile; a trace as
// Chrome JSON and as a Perfetto trace) and its JSON must parse back to an equal rendering.
//
// Must never: be built without clang (see viewer/CMakeLists.txt, option BRRR_FUZZ).
#include <cstddef>
#include <cstdint>

#include "viewer/chrome_trace.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/perfetto/perfetto_trace.h"
#include "viewer/pprof/pprof_profile.h"
#include "viewer/render_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<brrr::BrrrContents> contents = brrr::ParseBrrrContents(bytes, "fuzz");
  if (contents.ok() && contents->trace.has_value()) {
    (void)brrr::RenderChromeTrace(*contents->trace);
    (void)brrr::RenderPerfettoTrace(*contents->trace);
  }
  absl::StatusOr<brrr::Report> report = brrr::ParseBrrrFile(bytes, "fuzz");
  if (!report.ok()) return 0;
  (void)brrr::RenderText(*report);
  if (!brrr::RenderPprof(*report).ok()) __builtin_trap();
  const std::string json = brrr::RenderJson(*report);
  absl::StatusOr<brrr::Report> again = brrr::ParseReportJson(json);
  if (!again.ok() || brrr::RenderJson(*again) != json) __builtin_trap();
  return 0;
}
