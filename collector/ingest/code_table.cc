// Code slots -> PythonCode. See code_table.h.
//
// Must never: index a slot without the range check, or copy a byte outside the slot's data[].
#include "collector/ingest/code_table.h"

#include <atomic>
#include <cstring>
#include <memory>

namespace brrr::ingest {
namespace {

// Length of the valid UTF-8 sequence at text[pos] (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), or 0.
size_t Utf8Length(absl::string_view text, size_t pos) {
  const auto at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char c = at(pos);
  if (c < 0x80) return 1;
  size_t length = 0;
  uint32_t min = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    length = 2, min = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3, min = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((at(pos + i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (at(pos + i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::string SanitizeUtf8(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t length = Utf8Length(bytes, pos);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++pos;
      continue;
    }
    if (length == 1) {
      const unsigned char c = static_cast<unsigned char>(bytes[pos]);
      out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    } else {
      out.append(bytes.data() + pos, length);
    }
    pos += length;
  }
  return out;
}

const PythonCode* CodeTable::Lookup(uint32_t code_id) {
  if (code_id == 0) return nullptr;
  if (code_id > slot_count_) {
    ++stats_->bad_code_ids;
    return nullptr;
  }
  if (auto it = cache_.find(code_id); it != cache_.end()) return it->second.get();
  ring::CodeSlot& slot = slots_[code_id - 1];
  if (slot.ready.load(std::memory_order_acquire) != 1) return nullptr;  // R8
  // Each field read once; the writer (or damage) may change them at any time.
  const uint32_t filename_length = slot.filename_length;
  const uint32_t qualname_length = slot.qualname_length;
  const uint32_t table_length = slot.linetable_length;
  const uint32_t full_length = slot.linetable_full_length;
  if (filename_length > ring::kMaxCodeStringLength ||
      qualname_length > ring::kMaxCodeStringLength) {
    ++stats_->bad_code_slots;
    return nullptr;
  }
  auto code = std::make_unique<PythonCode>();
  // Both strings fit data[] (2 * 1024 < kCodeSlotData); the line table gets what is left.
  static_assert(2 * ring::kMaxCodeStringLength < ring::kCodeSlotData);
  char data[ring::kCodeSlotData];
  std::memcpy(data, slot.data, sizeof(data));
  code->filename = SanitizeUtf8(absl::string_view(data, filename_length));
  code->qualname = SanitizeUtf8(absl::string_view(data + filename_length, qualname_length));
  code->first_line = slot.first_line;
  const uint32_t table_start = filename_length + qualname_length;
  const uint32_t room = ring::kCodeSlotData - table_start;
  if (table_length > room) {
    // A length that does not fit the slot: the bytes are not the table. No line from them.
    ++stats_->bad_code_slots;
    code->line_table_truncated = true;
  } else {
    code->line_table.assign(data + table_start, data + table_start + table_length);
    code->line_table_truncated = full_length != table_length;
  }
  return cache_.emplace(code_id, std::move(code)).first->second.get();
}

}  // namespace brrr::ingest
