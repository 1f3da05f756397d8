// Formatting of the reader's damage counters. See reader_stats.h.
//
// Must never: omit a counter from ToString or Damage.
#include "collector/ingest/reader_stats.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace brrr::ingest {

uint64_t ReaderStats::Damage() const {
  return bad_ring_states + index_corruptions + unknown_api + bad_nvtx_ops + bad_enum_values + bad_timestamps +
         bad_stack_ids + bad_stack_depths + bad_name_ids + bad_name_lengths + bad_code_ids +
         bad_code_slots + bad_counter_values;
}

std::string ReaderStats::ToString() const {
  const std::pair<const char*, uint64_t> fields[] = {
      {"bad_ring_states", bad_ring_states},
      {"index_corruptions", index_corruptions},
      {"records_lost", records_lost},
      {"unknown_api", unknown_api},
      {"bad_nvtx_ops", bad_nvtx_ops},
      {"bad_enum_values", bad_enum_values},
      {"bad_timestamps", bad_timestamps},
      {"bad_stack_ids", bad_stack_ids},
      {"bad_stack_depths", bad_stack_depths},
      {"bad_name_ids", bad_name_ids},
      {"bad_name_lengths", bad_name_lengths},
      {"bad_code_ids", bad_code_ids},
      {"bad_code_slots", bad_code_slots},
      {"bad_counter_values", bad_counter_values},
      {"rejected_clock_pairs", rejected_clock_pairs},
  };
  std::string out;
  for (const auto& [name, value] : fields) {
    if (value == 0) continue;
    if (!out.empty()) out += ' ';
    absl::StrAppend(&out, name, "=", value);
  }
  return out;
}

}  // namespace brrr::ingest
