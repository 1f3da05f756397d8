// The version lines. See version_text.h.
#include "collector/cli/version_text.h"

#include "absl/strings/str_cat.h"
#include "viewer/format/brrr_file_format.h"
#include "viewer/format/report.h"

#ifndef BRRR_VERSION
#error "the version defines come from CMake (collector/cli/CMakeLists.txt)"
#endif

namespace brrr::cli {

const char* ProjectVersion() { return BRRR_VERSION; }

std::string VersionText() {
  // CUPTI_API_VERSION is a plain number (130001 for CUDA 13.0's CUPTI).
  return absl::StrCat("brrr ", BRRR_VERSION, "\n",
                      ".brrr format ", kBrrrFormatVersion, " (trace payload ", kTracePayloadVersion,
                      "), JSON report schema ", kReportSchema, "\n",
                      "built against CUDA ", BRRR_CUDA_VERSION, " (CUPTI API ",
                      BRRR_CUPTI_API_VERSION,
                      "); profiles programs with the CUDA they bring\n");
}

}  // namespace brrr::cli
