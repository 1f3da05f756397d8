// libFuzzer target: arbitrary bytes into ParseReportJson (the strict JSON parser and the report
// decoder). Whatever parses must render, and its rendering must parse back to the same rendering.
//
// Must never: be built without clang (see viewer/CMakeLists.txt, option BRRR_FUZZ).
#include <cstddef>
#include <cstdint>

#include "viewer/format/report_json.h"
#include "viewer/render_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<brrr::Report> report = brrr::ParseReportJson(bytes);
  if (!report.ok()) return 0;
  (void)brrr::RenderText(*report);
  const std::string json = brrr::RenderJson(*report);
  absl::StatusOr<brrr::Report> again = brrr::ParseReportJson(json);
  if (!again.ok() || brrr::RenderJson(*again) != json) __builtin_trap();
  return 0;
}
