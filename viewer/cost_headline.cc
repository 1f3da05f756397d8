// brrr's cost headline. See cost_headline.h.
#include "viewer/cost_headline.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace brrr {

std::string CostHeadline(const Overhead& o) {
  const std::string pct = absl::StrFormat("%.2g%% of wall", o.pct_of_wall);
  return o.unmeasured.empty() ? absl::StrCat("~", pct) : absl::StrCat("unknown: at least ", pct);
}

}  // namespace brrr
