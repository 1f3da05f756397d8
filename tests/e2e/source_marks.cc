// MarkedLine (see source_marks.h).
#include "tests/e2e/source_marks.h"

#include <fstream>

#include "gtest/gtest.h"

namespace brrr::e2e {

std::string MarkedLine(const std::string& directory, const std::string& file,
                       const std::string& mark) {
  std::ifstream source(directory + "/" + file);
  std::string text;
  for (int line = 1; std::getline(source, text); ++line) {
    if (text.find("// MARK: " + mark) != std::string::npos) {
      return "(" + file + ":" + std::to_string(line) + ")";
    }
  }
  ADD_FAILURE() << "no line marked " << mark << " in " << file;
  return "(no such mark)";
}

}  // namespace brrr::e2e
