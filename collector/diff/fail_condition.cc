// The CI gate's conditions. See fail_condition.h.
#include "collector/diff/fail_condition.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace brrr::diff {

absl::StatusOr<FailCondition> ParseFailCondition(const std::string& text,
                                                 const std::vector<std::string>& known_metrics) {
  const auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--fail-if '", text, "': ", why,
        " (the form is 'METRIC > +N%', 'METRIC > +N' or 'METRIC < -N%'; also >= and <=)"));
  };
  FailCondition c;
  c.text = text;
  const size_t op_at = text.find_first_of("<>");
  if (op_at == std::string::npos) return bad("no comparison");
  c.metric = std::string(absl::StripAsciiWhitespace(text.substr(0, op_at)));
  if (c.metric.empty()) return bad("no metric");
  for (char ch : c.metric) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '[' &&
        ch != ']') {
      return bad(absl::StrCat("'", c.metric, "' is not a metric name"));
    }
  }
  const bool greater = text[op_at] == '>';
  size_t rest_at = op_at + 1;
  const bool equal = rest_at < text.size() && text[rest_at] == '=';
  if (equal) ++rest_at;
  c.op = greater ? (equal ? FailCondition::Op::kGreaterEqual : FailCondition::Op::kGreater)
                 : (equal ? FailCondition::Op::kLessEqual : FailCondition::Op::kLess);
  std::string value(absl::StripAsciiWhitespace(text.substr(rest_at)));
  if (value.empty()) return bad("no value");
  if (value.find_first_of("<>=") != std::string::npos) return bad("more than one comparison");
  if (value.back() == '%') {
    c.percent = true;
    value.pop_back();
  }
  double number = 0;
  if (value.empty() || !(value[0] == '+' || value[0] == '-' || absl::ascii_isdigit(value[0])) ||
      !absl::SimpleAtod(value, &number) || !std::isfinite(number)) {
    return bad(absl::StrCat("'", value, "' is not a number"));
  }
  c.value = number;
  if (std::find(known_metrics.begin(), known_metrics.end(), c.metric) == known_metrics.end()) {
    return absl::InvalidArgumentError(absl::StrCat("--fail-if '", text, "': unknown metric '",
                                                   c.metric, "' (one of ",
                                                   absl::StrJoin(known_metrics, ", "), ")"));
  }
  return c;
}

bool Holds(const FailCondition& c, const ReportDiff& diff) {
  const auto it = std::find_if(diff.metrics.begin(), diff.metrics.end(),
                               [&](const DiffMetric& m) { return m.name == c.metric; });
  if (it == diff.metrics.end()) return false;
  const DiffMetric& m = *it;
  double change = m.delta;
  if (c.percent) {
    change = m.delta_pct.has_value() ? *m.delta_pct
                                     : (m.b > m.a   ? INFINITY
                                        : m.b < m.a ? -INFINITY
                                                    : 0);
  }
  bool compared = false;
  switch (c.op) {
    case FailCondition::Op::kGreater:
      compared = change > c.value;
      break;
    case FailCondition::Op::kGreaterEqual:
      compared = change >= c.value;
      break;
    case FailCondition::Op::kLess:
      compared = change < c.value;
      break;
    case FailCondition::Op::kLessEqual:
      compared = change <= c.value;
      break;
  }
  if (!compared) return false;
  return m.count ? m.delta != 0 : m.significant;
}

}  // namespace brrr::diff
