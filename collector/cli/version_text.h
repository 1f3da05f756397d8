// `brrr --version`: the project's version (CMake's project(VERSION)), the formats it writes (the
// .brrr container, its trace payload, the JSON report's schema) and the CUDA toolkit and CUPTI API
// it was built against (brrr uses the application's CUDA at run time; these are what its headers
// were).
//
// Must never: read anything at run time (every figure is fixed at build time).
#ifndef BRRR_COLLECTOR_CLI_VERSION_TEXT_H_
#define BRRR_COLLECTOR_CLI_VERSION_TEXT_H_

#include <string>

namespace brrr::cli {

// "brrr 0.1.0\n.brrr format 1 ...\n..." (several lines, each ending in a newline).
std::string VersionText();

// The project's version alone ("0.1.0").
const char* ProjectVersion();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_VERSION_TEXT_H_
