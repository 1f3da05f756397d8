// Where an e2e program's source marks a line ("// MARK: name"), as brrr's frames name it:
// "(file.cu:N)". The tests expect frames at marked lines, so that editing a program never
// silently moves what a test checks.
//
// Must never: guess a line (a missing mark fails the test).
#ifndef BRRR_TESTS_E2E_SOURCE_MARKS_H_
#define BRRR_TESTS_E2E_SOURCE_MARKS_H_

#include <string>

namespace brrr::e2e {

// "(FILE:N)" for the line of `directory`/FILE that carries "// MARK: <mark>"; "(no such mark)"
// and a test failure when none does.
std::string MarkedLine(const std::string& directory, const std::string& file,
                       const std::string& mark);

}  // namespace brrr::e2e

#endif  // BRRR_TESTS_E2E_SOURCE_MARKS_H_
