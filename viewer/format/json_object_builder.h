// Builds an nlohmann::ordered_json object member by member, in the order written, for the
// report's JSON writers. Faster than initializer lists (which build a temporary two-element array
// per member) and operator[] (which searches the members first): the members are appended as they
// are. Keys are the writer's own, so the caller keeps them distinct.
//
// Must never: be used with keys from outside (it does not check for duplicates).
#ifndef BRRR_VIEWER_FORMAT_JSON_OBJECT_BUILDER_H_
#define BRRR_VIEWER_FORMAT_JSON_OBJECT_BUILDER_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>

namespace brrr {

class JsonObjectBuilder {
 public:
  // `members`: how many will be added (room is reserved for them).
  explicit JsonObjectBuilder(size_t members) : object_(nlohmann::ordered_json::object()) {
    Members().reserve(members);
  }

  template <typename Value>
  JsonObjectBuilder& Add(const char* key, Value&& value) {
    Members().emplace_back(key, std::forward<Value>(value));
    return *this;
  }

  nlohmann::ordered_json Build() { return std::move(object_); }

 private:
  nlohmann::ordered_json::object_t& Members() {
    return *object_.get_ptr<nlohmann::ordered_json::object_t*>();
  }

  nlohmann::ordered_json object_;
};

// An empty array with room for `n` elements, for the same writers.
inline nlohmann::ordered_json JsonArrayWithRoom(size_t n) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  out.get_ptr<nlohmann::ordered_json::array_t*>()->reserve(n);
  return out;
}

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_JSON_OBJECT_BUILDER_H_
