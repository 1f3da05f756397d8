// Typed, range-checked reads of the members of a parsed JSON object (a tree from ParseStrictJson),
// shared by the report, job and timeline decoders. Errors name the member's JSON path, e.g.
// "report JSON: $.api[2].calls: expected an integer in [0, 18446744073709551615], got -1".
//
// Thread safety: one reader per decode.
// Must never: throw (no nlohmann get<> on an unchecked type), or accept a fraction, an exponent
// or an out-of-range value where an integer is expected.
#ifndef BRRR_VIEWER_FORMAT_JSON_FIELDS_H_
#define BRRR_VIEWER_FORMAT_JSON_FIELDS_H_

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace brrr {

// The member `key` of `obj`, or nullptr (also when `obj` is not an object).
const nlohmann::json* FindMember(const nlohmann::json& obj, absl::string_view key);

// The elements of `v` if it is an array; an empty array otherwise.
const nlohmann::json::array_t& ElementsOf(const nlohmann::json& v);

// Stores `v` in `out` if it is an integer number (not a double, however integral) in [min, max of
// Int]; false otherwise.
template <typename Int>
bool ToInteger(const nlohmann::json& v, Int& out) {
  if (const auto* u = v.get_ptr<const nlohmann::json::number_unsigned_t*>()) {
    if (!std::in_range<Int>(*u)) return false;
    out = static_cast<Int>(*u);
    return true;
  }
  if (const auto* s = v.get_ptr<const nlohmann::json::number_integer_t*>()) {
    if (!std::in_range<Int>(*s)) return false;
    out = static_cast<Int>(*s);
    return true;
  }
  return false;
}

// A value for an error message: a number as written back, "a string", or the kind's name.
std::string JsonExcerpt(const nlohmann::json& v);

class JsonFieldReader {
 public:
  absl::Status status() const { return status_; }
  bool ok() const { return status_.ok(); }

  // Records the first error, as "report JSON: <what>".
  void Fail(absl::string_view what);
  // Records `status` if it is the first error.
  void Record(const absl::Status& status) {
    if (status_.ok()) status_ = status;
  }

  // The member `key` of `obj` when present with the kind of `kind` (any number for the number
  // kinds); nullptr when absent, after an error, or (recording an error) of another kind.
  const nlohmann::json* Member(const nlohmann::json& obj, absl::string_view key,
                               absl::string_view path, nlohmann::json::value_t kind);

  // Each leaves `out` unchanged when the member is absent.
  void String(const nlohmann::json& obj, absl::string_view key, absl::string_view path,
              std::string& out);
  void Bool(const nlohmann::json& obj, absl::string_view key, absl::string_view path, bool& out);
  template <typename Int>
  void Integer(const nlohmann::json& obj, absl::string_view key, absl::string_view path, Int& out,
               Int min = std::numeric_limits<Int>::min()) {
    const nlohmann::json* v = Member(obj, key, path, nlohmann::json::value_t::number_integer);
    if (v == nullptr) return;
    Int value{};
    if (!ToInteger(*v, value) || value < min) {
      Fail(absl::StrCat(path, ".", key, ": expected an integer in [", min, ", ",
                        std::numeric_limits<Int>::max(), "], got ", JsonExcerpt(*v)));
      return;
    }
    out = value;
  }

  // Calls read(element, element_path) for each element of the array member `key`, each of which
  // must be an object ("<path>.<key>[i]: expected object" otherwise); stops at the first error.
  template <typename Read>
  void Objects(const nlohmann::json& obj, absl::string_view key, absl::string_view path,
               Read read) {
    const nlohmann::json* list = Member(obj, key, path, nlohmann::json::value_t::array);
    if (list == nullptr) return;
    const nlohmann::json::array_t& elements = ElementsOf(*list);
    for (size_t i = 0; i < elements.size() && ok(); ++i) {
      const std::string item = absl::StrCat(path, ".", key, "[", i, "]");
      if (!elements[i].is_object()) return Fail(absl::StrCat(item, ": expected object"));
      read(elements[i], item);
    }
  }

  // The strings of the array member `key` appended to `out` ("<path>.<key>[i]: expected string"
  // on another kind of element).
  void Strings(const nlohmann::json& obj, absl::string_view key, absl::string_view path,
               std::vector<std::string>& out);
  // The integers (>= min) of the array member `key` appended to `out`, at most `max_count` of
  // them ("<path>.<key>: more than N" past that).
  void Integers(const nlohmann::json& obj, absl::string_view key, absl::string_view path,
                std::vector<int64_t>& out, int64_t min, size_t max_count);
  // A number of any kind in [0, max], as a double; absent leaves `out` unchanged.
  void Number(const nlohmann::json& obj, absl::string_view key, absl::string_view path, double max,
              double& out);

 private:
  absl::Status status_;
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_JSON_FIELDS_H_
