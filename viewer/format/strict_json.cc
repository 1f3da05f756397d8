// A SAX handler for nlohmann::json::sax_parse that builds the tree while enforcing the limits and
// the rules nlohmann does not (see strict_json.h), and turns every error into an absl::Status.
//
// Must never: throw out of ParseStrictJson, recurse (nlohmann's parser keeps its own stack), or
// copy input bytes that may be invalid UTF-8 or control characters into an error message
// unescaped.
#include "viewer/format/strict_json.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace brrr {
namespace {

using Json = nlohmann::json;

// An input iterator over the text that keeps count of the bytes the parser has read, so an error
// found by the handler (which nlohmann does not tell where it is) can name its byte.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* p, size_t* consumed) : p_(p), consumed_(consumed) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    ++*consumed_;
    return *this;
  }
  bool operator==(const CountingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const CountingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_;
  size_t* consumed_;
};

// At most the last 40 bytes of `text`, with every byte that is not printable ASCII as \xNN.
std::string Printable(absl::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = text.size() > kMax ? "..." : "";
  if (text.size() > kMax) text.remove_prefix(text.size() - kMax);
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      absl::StrAppend(&out, "\\x", absl::Hex(u, absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// nlohmann's error without its "[json.exception.parse_error.101] " tag and "parse error at line L,
// column C: " prefix (the caller names the place), with the input it quotes made printable.
std::string ParseErrorText(const std::string& what, const std::string& last_token) {
  std::string text = what;
  if (text.rfind("[json.exception.", 0) == 0) {
    if (const size_t tag_end = text.find("] "); tag_end != std::string::npos) {
      text.erase(0, tag_end + 2);
    }
  }
  if (text.rfind("parse error at line ", 0) == 0) {
    if (const size_t colon = text.find(": "); colon != std::string::npos) text.erase(0, colon + 2);
  }
  const std::string quoted = absl::StrCat("; last read: '", last_token, "'");
  if (const size_t at = text.find(quoted); at != std::string::npos) {
    text.replace(at, quoted.size(), absl::StrCat("; last read: '", Printable(last_token), "'"));
  }
  return text;
}

class StrictTreeBuilder {
 public:
  StrictTreeBuilder(const JsonLimits& limits, const size_t* consumed)
      : limits_(limits), consumed_(consumed) {}

  Json& root() { return root_; }
  const std::string& error() const { return error_; }
  size_t error_offset() const { return error_offset_; }

  // The nlohmann SAX interface (nlohmann::json_sax<Json>).
  bool null() { return Insert(nullptr) != nullptr; }
  bool boolean(bool value) { return Insert(value) != nullptr; }
  bool number_integer(Json::number_integer_t value) { return Insert(value) != nullptr; }
  bool number_unsigned(Json::number_unsigned_t value) { return Insert(value) != nullptr; }
  // nlohmann reports a number that overflows a double (1e999) as a parse error before this.
  bool number_float(Json::number_float_t value, const std::string& /*literal*/) {
    return Insert(value) != nullptr;
  }
  bool string(std::string& value) { return Insert(std::move(value)) != nullptr; }
  bool binary(Json::binary_t& /*value*/) { return Fail("binary value"); }  // not in JSON text

  bool start_object(std::size_t /*elements*/) { return Open(Json::object()); }
  bool start_array(std::size_t /*elements*/) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& key) {
    Json::object_t* object = open_.empty() ? nullptr : open_.back()->get_ptr<Json::object_t*>();
    if (object == nullptr) return Fail("key outside an object");  // not reached
    // try_emplace leaves `key` as it was when the key is already there.
    auto [it, inserted] = object->try_emplace(std::move(key));
    if (!inserted) return Fail(absl::StrCat("duplicate key \"", Printable(key), "\" in object"));
    slot_ = &it->second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const Json::exception& error) {
    // nlohmann's position counts the bytes read including the offending one (1-based).
    return Fail(ParseErrorText(error.what(), last_token), position > 0 ? position - 1 : 0);
  }

 private:
  // Records the first error (at the last byte read unless given); always returns false, which
  // stops the parser.
  bool Fail(std::string what, size_t offset = SIZE_MAX) {
    if (error_.empty()) {
      error_ = std::move(what);
      error_offset_ = offset != SIZE_MAX ? offset : (*consumed_ > 0 ? *consumed_ - 1 : 0);
    }
    return false;
  }

  // Puts `value` where the parser is: the root, the end of the open array, or the member whose
  // key was just read. Returns where it went, or nullptr (and an error) past the value limit.
  Json* Insert(Json&& value) {
    if (++values_ > limits_.max_values) {
      Fail(absl::StrCat("more than ", limits_.max_values, " values"));
      return nullptr;
    }
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    if (Json::array_t* array = open_.back()->get_ptr<Json::array_t*>()) {
      array->push_back(std::move(value));
      return &array->back();  // stays valid: nothing is added to this array while it is open
    }
    *slot_ = std::move(value);
    return slot_;
  }

  bool Open(Json&& container) {
    if (open_.size() >= static_cast<size_t>(limits_.max_depth)) {
      return Fail(absl::StrCat("nesting deeper than ", limits_.max_depth));
    }
    Json* placed = Insert(std::move(container));
    if (placed == nullptr) return false;
    open_.push_back(placed);
    return true;
  }

  bool Close() {
    if (!open_.empty()) open_.pop_back();
    return true;
  }

  const JsonLimits& limits_;
  const size_t* consumed_;
  Json root_;
  std::vector<Json*> open_;  // the open arrays and objects, innermost last
  Json* slot_ = nullptr;     // the member whose key was read last
  size_t values_ = 0;
  std::string error_;
  size_t error_offset_ = 0;
};

absl::Status ErrorAt(absl::string_view text, size_t offset, absl::string_view what) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("JSON: at byte ", offset, " (line ", line, ", column ", column, "): ", what));
}

}  // namespace

absl::StatusOr<Json> ParseStrictJson(absl::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("JSON: input of ", text.size(),
                                                   " bytes exceeds the limit of ", limits.max_bytes,
                                                   " bytes"));
  }
  // nlohmann's lexer takes a NUL byte outside a string for the end of the input and would ignore
  // whatever follows it; a raw NUL is never valid JSON, so it is an error wherever it is.
  if (const size_t nul = text.find('\0'); nul != absl::string_view::npos) {
    return ErrorAt(text, nul, "NUL byte (not allowed in JSON text)");
  }
  size_t consumed = 0;
  StrictTreeBuilder builder(limits, &consumed);
  bool ok = false;
  try {
    ok = Json::sax_parse(CountingIterator(text.data(), &consumed),
                         CountingIterator(text.data() + text.size(), &consumed), &builder,
                         Json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/false);
  } catch (const Json::exception& e) {
    // Not expected (errors go to the handler's parse_error), but never let one escape.
    return absl::InvalidArgumentError(absl::StrCat("JSON: ", Printable(e.what())));
  }
  if (!ok) {
    if (builder.error().empty()) return ErrorAt(text, consumed, "not a JSON document");
    return ErrorAt(text, builder.error_offset(), builder.error());
  }
  return std::move(builder.root());
}

}  // namespace brrr
