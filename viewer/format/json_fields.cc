// Member lookup and typed reads over an nlohmann::json tree. See json_fields.h.
//
// Must never: call a throwing nlohmann accessor (get<>, at(), operator[] on a const tree).
#include "viewer/format/json_fields.h"

namespace brrr {

using Json = nlohmann::json;

const Json* FindMember(const Json& obj, absl::string_view key) {
  const Json::object_t* object = obj.get_ptr<const Json::object_t*>();
  if (object == nullptr) return nullptr;
  const auto it = object->find(std::string_view(key.data(), key.size()));
  return it == object->end() ? nullptr : &it->second;
}

const Json::array_t& ElementsOf(const Json& v) {
  static const Json::array_t kEmpty;
  const Json::array_t* array = v.get_ptr<const Json::array_t*>();
  return array != nullptr ? *array : kEmpty;
}

std::string JsonExcerpt(const Json& v) {
  if (v.is_number()) return v.dump().substr(0, 40);
  if (v.is_string()) return "a string";
  return v.type_name();
}

void JsonFieldReader::Fail(absl::string_view what) {
  if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("report JSON: ", what));
}

const Json* JsonFieldReader::Member(const Json& obj, absl::string_view key, absl::string_view path,
                                    Json::value_t kind) {
  const Json* v = FindMember(obj, key);
  if (v == nullptr || !status_.ok()) return nullptr;
  const Json expected(kind);
  const bool same = expected.is_number() ? v->is_number() : v->type() == kind;
  if (!same) {
    Fail(absl::StrCat(path, ".", key, ": expected ", expected.type_name(), ", got ",
                      JsonExcerpt(*v)));
    return nullptr;
  }
  return v;
}

void JsonFieldReader::String(const Json& obj, absl::string_view key, absl::string_view path,
                             std::string& out) {
  const Json* v = Member(obj, key, path, Json::value_t::string);
  if (v != nullptr) out = *v->get_ptr<const Json::string_t*>();
}

void JsonFieldReader::Bool(const Json& obj, absl::string_view key, absl::string_view path,
                           bool& out) {
  const Json* v = Member(obj, key, path, Json::value_t::boolean);
  if (v != nullptr) out = *v->get_ptr<const Json::boolean_t*>();
}

void JsonFieldReader::Strings(const Json& obj, absl::string_view key, absl::string_view path,
                              std::vector<std::string>& out) {
  const Json* list = Member(obj, key, path, Json::value_t::array);
  if (list == nullptr) return;
  const Json::array_t& elements = ElementsOf(*list);
  for (size_t i = 0; i < elements.size(); ++i) {
    const Json::string_t* s = elements[i].get_ptr<const Json::string_t*>();
    if (s == nullptr) return Fail(absl::StrCat(path, ".", key, "[", i, "]: expected string"));
    out.push_back(*s);
  }
}

void JsonFieldReader::Integers(const Json& obj, absl::string_view key, absl::string_view path,
                               std::vector<int64_t>& out, int64_t min, size_t max_count) {
  const Json* list = Member(obj, key, path, Json::value_t::array);
  if (list == nullptr) return;
  const Json::array_t& elements = ElementsOf(*list);
  if (elements.size() > max_count) {
    return Fail(absl::StrCat(path, ".", key, ": more than ", max_count, " values"));
  }
  out.reserve(out.size() + elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    int64_t value = 0;
    if (!ToInteger(elements[i], value) || value < min) {
      return Fail(absl::StrCat(path, ".", key, "[", i, "]: expected an integer >= ", min, ", got ",
                               JsonExcerpt(elements[i])));
    }
    out.push_back(value);
  }
}

void JsonFieldReader::Number(const Json& obj, absl::string_view key, absl::string_view path,
                             double max, double& out) {
  const Json* v = Member(obj, key, path, Json::value_t::number_float);
  if (v == nullptr) return;
  const auto* f = v->get_ptr<const Json::number_float_t*>();
  const auto* i = v->get_ptr<const Json::number_integer_t*>();
  const auto* u = v->get_ptr<const Json::number_unsigned_t*>();
  const double value = f != nullptr   ? *f
                       : i != nullptr ? static_cast<double>(*i)
                                      : static_cast<double>(u != nullptr ? *u : 0);
  if (!(value >= 0 && value <= max * (1 + 1e-9))) {
    return Fail(absl::StrCat(path, ".", key, ": expected a number in [0, ", max, "]"));
  }
  out = value;
}

}  // namespace brrr
