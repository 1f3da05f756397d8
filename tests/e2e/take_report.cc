// TakeReport (see take_report.h).
#include "tests/e2e/take_report.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"

namespace brrr::e2e {

Report TakeReport(const std::string& path) {
  auto report = ReadBrrrFile(path);
  std::filesystem::remove(path);
  if (!report.ok()) {
    ADD_FAILURE() << "no readable report at " << path << ": " << report.status();
    return {};
  }
  return *std::move(report);
}

}  // namespace brrr::e2e
