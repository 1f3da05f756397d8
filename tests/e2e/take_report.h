// Reading the .brrr file an e2e test's `brrr run` wrote: the report, with the file removed.
//
// Must never: hide why a report is missing (the test fails with the reader's reason).
#ifndef BRRR_TESTS_E2E_TAKE_REPORT_H_
#define BRRR_TESTS_E2E_TAKE_REPORT_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr::e2e {

// The report saved at `path`, which is then removed; an empty Report and a test failure (with
// the reader's reason) when there is none or it cannot be read.
Report TakeReport(const std::string& path);

}  // namespace brrr::e2e

#endif  // BRRR_TESTS_E2E_TAKE_REPORT_H_
