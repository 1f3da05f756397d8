// Native + Python frames -> one list of frames. See mixed_stack_symbolizer.h.
//
// Must never: emit a Python run twice or lose one (every Python entry appears exactly once).
#include "collector/symbolize/mixed_stack_symbolizer.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "shim/ring_format.h"

namespace brrr::symbolize {
namespace {

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string SymbolizerFrames::Frame(uint64_t return_address) {
  return symbolizer_->FramesAt(return_address).back();
}

std::vector<std::string> SymbolizerFrames::Frames(uint64_t return_address) {
  return symbolizer_->FramesAt(return_address);
}

std::string SymbolizerFrames::Module(uint64_t return_address) {
  const MappedRegion* region = maps_->Find(return_address > 0 ? return_address - 1 : 0);
  if (region == nullptr) return "";
  absl::string_view path = region->path;
  absl::ConsumeSuffix(&path, " (deleted)");
  return std::string(Basename(path));
}

bool SymbolizerFrames::IsProfilerPlumbing(uint64_t return_address) {
  return symbolizer_->IsProfilerPlumbing(return_address);
}

bool IsInterpreterModule(const std::string& basename) {
  if (absl::StartsWith(basename, "libpython3")) return true;
  if (!absl::StartsWith(basename, "python")) return false;
  // python, python3, python3.12, python3.12d: digits and dots, then ABI letters.
  size_t i = 6;
  while (i < basename.size() &&
         (std::isdigit(static_cast<unsigned char>(basename[i])) || basename[i] == '.'))
    ++i;
  while (i < basename.size() && std::islower(static_cast<unsigned char>(basename[i]))) ++i;
  return i == basename.size();
}

bool IsEvaluatorFrame(const std::string& frame) {
  // "_PyEval_EvalFrameDefault (ceval.c:1200)", "... (libpython3.12.so.1.0)", or its cold part
  // split off by the compiler ("_PyEval_EvalFrameDefault.cold").
  constexpr absl::string_view kEvaluator = "_PyEval_EvalFrameDefault";
  if (!absl::StartsWith(frame, kEvaluator)) return false;
  return frame.size() == kEvaluator.size() || frame[kEvaluator.size()] == ' ' ||
         frame[kEvaluator.size()] == '.';
}

MixedStackSymbolizer::MixedStackSymbolizer(NativeFrames* native, ingest::CodeTable* codes,
                                           uint32_t python_version)
    : native_(native), codes_(codes), format_(LineTableFormatFor(python_version)) {}

const std::string& MixedStackSymbolizer::PythonFrame(uint64_t entry) {
  const uint64_t key = entry & ~ring::kPythonEntryFrame;
  if (auto it = python_cache_.find(key); it != python_cache_.end()) return it->second;
  std::string text = kUnknownPythonFrame;
  const uint32_t code_id = ring::PythonCodeId(entry);
  const ingest::PythonCode* code = code_id == 0 ? nullptr : codes_->Lookup(code_id);
  if (code != nullptr) {
    std::optional<uint32_t> line;
    if (format_.has_value()) {
      LineTable table;
      table.format = *format_;
      table.bytes = absl::MakeConstSpan(code->line_table);
      table.truncated = code->line_table_truncated;
      table.first_line = code->first_line;
      line = PythonLine(table, ring::PythonOffset(entry));
    }
    const absl::string_view file = Basename(code->filename);
    const std::string name = code->qualname.empty() ? "?" : code->qualname;
    text = line.has_value() ? absl::StrCat(name, " (", file, ":", *line, ")")
                            : absl::StrCat(name, " (", file, ")");
  }
  return python_cache_.emplace(key, std::move(text)).first->second;
}

std::vector<std::string> MixedStackSymbolizer::Frames(const std::vector<uint64_t>& entries) {
  std::vector<uint64_t> native;
  std::vector<uint64_t> python;
  for (const uint64_t e : entries) (ring::IsPythonFrame(e) ? python : native).push_back(e);
  std::vector<std::string> frames;
  frames.reserve(entries.size());
  size_t next_python = 0;
  const auto emit_run = [&] {
    while (next_python < python.size()) {
      const uint64_t e = python[next_python++];
      frames.push_back(PythonFrame(e));
      if (ring::IsPythonEntryFrame(e)) break;
    }
  };
  for (const uint64_t pc : native) {
    if (native_->IsProfilerPlumbing(pc)) continue;
    std::vector<std::string> at = native_->Frames(pc);
    if (at.empty()) continue;
    const std::string& frame = at.back();  // the out-of-line function
    if (!python.empty()) {
      // The evaluator is recognized by name wherever it lives (an application that links
      // libpython statically keeps the interpreter in its own executable); the interpreter's
      // other frames only in the interpreter's modules.
      if (IsEvaluatorFrame(frame)) {
        emit_run();
        continue;
      }
      if (IsInterpreterModule(native_->Module(pc))) continue;
    }
    for (std::string& f : at) frames.push_back(std::move(f));
  }
  while (next_python < python.size()) emit_run();
  if (frames.empty() && !native.empty()) {
    // Only brrr's, CUPTI's and the driver's frames were captured: the outermost says where the
    // unwind stopped, named by its module (the report then says the stack ended early and
    // why, analysis/stack_end.h), instead of no stack at all.
    const std::string frame = native_->Frame(native.back());
    const size_t open = frame.rfind(" (");
    const std::string module = native_->Module(native.back());
    frames.push_back(open == std::string::npos || module.empty()
                         ? frame
                         : absl::StrCat(frame.substr(0, open), " (", module, ")"));
  }
  return frames;
}

}  // namespace brrr::symbolize
