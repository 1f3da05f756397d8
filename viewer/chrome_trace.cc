// Chrome trace / Perfetto JSON export of a Trace. See chrome_trace.h.
//
// What is drawn is decided in trace_view.h; this writes it as JSON.
//
// Must never: subtract timestamps in signed arithmetic (any int64 values must work).
#include "viewer/chrome_trace.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace brrr {
namespace {

// Appends `text` as a quoted JSON string, escaped by nlohmann; bytes that are not valid UTF-8 (a
// kernel or NVTX name from the application) become U+FFFD, so the document stays valid.
void AppendJsonString(std::string& out, absl::string_view text) {
  try {
    out += nlohmann::json(std::string(text))
               .dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  } catch (const nlohmann::json::exception&) {
    out += "\"\"";  // not reached: with error_handler_t::replace, dump() throws nothing
  }
}

// Writes the document; events are appended one per line, and handed to the sink a piece at a time.
class ChromeTraceWriter {
 public:
  explicit ChromeTraceWriter(const TraceView& view) : view_(view) {
    // Each string once as JSON text.
    quoted_.reserve(view.strings.size());
    for (const std::string& text : view.strings) {
      std::string q;
      AppendJsonString(q, text);
      quoted_.push_back(std::move(q));
    }
  }

  void Write(ByteSink& sink) {
    PieceBuffer pieces(out_, sink);
    pieces_ = &pieces;
    out_ = "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
    const TraceView::Totals& t = view_.totals;
    absl::StrAppend(&out_, "\"producer\":\"brrr\",\"app_pid\":", t.app_pid,
                    ",\"trace_cap\":", t.cap, ",\"events_kept\":", t.kept,
                    ",\"events_omitted\":", t.omitted,
                    ",\"omitted_host_calls\":", t.omitted_host_calls,
                    ",\"omitted_device_ops\":", t.omitted_device_ops,
                    ",\"omitted_api_activities\":", t.omitted_api_activities,
                    ",\"omitted_sync_activities\":", t.omitted_sync_activities,
                    ",\"omitted_nvtx\":", t.omitted_nvtx, ",\"time_origin_ns\":", view_.origin_ns,
                    "},\n\"traceEvents\":[");
    for (const TraceView::Process& p : view_.processes) {
      NameMetadata("process_name", p.pid, 0, p.name);
    }
    for (const TraceView::Thread& t : view_.threads)
      NameMetadata("thread_name", t.pid, t.tid, t.name);
    for (const TraceView::Slice& s : view_.slices) Slice(s);
    for (const TraceView::Instant& i : view_.instants) {
      BeginEvent();
      absl::StrAppend(&out_, "{\"name\":", quoted_[i.name], ",\"cat\":", quoted_[i.category],
                      ",\"ph\":\"i\",\"s\":\"t\",\"ts\":", Ts(i.time_ns), ",\"pid\":", i.pid,
                      ",\"tid\":", i.tid, "}");
    }
    for (const TraceView::AsyncRange& r : view_.async_ranges) {
      for (const char* ph : {"b", "e"}) {
        BeginEvent();
        absl::StrAppend(&out_, "{\"name\":", quoted_[r.name], ",\"cat\":", quoted_[r.category],
                        ",\"ph\":\"", ph, "\",\"id\":", r.id,
                        ",\"ts\":", Ts(ph[0] == 'b' ? r.start_ns : r.end_ns), ",\"pid\":", r.pid,
                        ",\"tid\":", r.tid, r.unclosed ? ",\"args\":{\"unclosed\":true}}" : "}");
      }
    }
    out_ += "\n]}\n";
    pieces.Finish();
    pieces_ = nullptr;
  }

 private:
  // Nanoseconds as microseconds with three decimals ("12.345").
  static std::string Micros(uint64_t ns) {
    return absl::StrFormat("%d.%03d", ns / 1000, ns % 1000);
  }
  std::string Ts(int64_t ns) const {
    return Micros(static_cast<uint64_t>(ns) - static_cast<uint64_t>(view_.origin_ns));
  }
  static std::string Dur(int64_t start, int64_t end) {
    return Micros(end > start ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start) : 0);
  }

  void BeginEvent() {
    pieces_->AtRecordEnd();
    out_ += first_event_ ? "\n" : ",\n";
    first_event_ = false;
  }

  void NameMetadata(absl::string_view what, int64_t pid, int64_t tid, uint32_t name) {
    BeginEvent();
    absl::StrAppend(&out_, "{\"name\":\"", what, "\",\"ph\":\"M\",\"pid\":", pid, ",\"tid\":", tid,
                    ",\"args\":{\"name\":", quoted_[name], "}}");
  }

  // {"name":...,"cat":...,"ph":"X","ts":...,"dur":...,"pid":...,"tid":...,"args":{...}}, with a
  // stall's "terrible" colour, and the flow events that start or end at it.
  void Slice(const TraceView::Slice& s) {
    if (s.flow_out != 0) {
      BeginEvent();
      absl::StrAppend(&out_,
                      "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":", s.flow_out,
                      ",\"ts\":", Ts(s.start_ns), ",\"pid\":", s.pid, ",\"tid\":", s.tid, "}");
    }
    BeginEvent();
    absl::StrAppend(&out_, "{\"name\":", quoted_[s.name], ",\"cat\":", quoted_[s.category],
                    ",\"ph\":\"X\",\"ts\":", Ts(s.start_ns), ",\"dur\":", Dur(s.start_ns, s.end_ns),
                    ",\"pid\":", s.pid, ",\"tid\":", s.tid);
    if (s.stall) out_ += ",\"cname\":\"terrible\"";
    out_ += ",\"args\":{";
    for (uint32_t i = 0; i < s.arg_count; ++i) {
      const TraceView::Arg& a = view_.args[s.first_arg + i];
      if (i > 0) out_ += ',';
      absl::StrAppend(&out_, quoted_[a.key], ":");
      switch (a.kind) {
        case TraceView::Arg::Kind::kInt:
          absl::StrAppend(&out_, a.value);
          break;
        case TraceView::Arg::Kind::kUint:
        case TraceView::Arg::Kind::kPointer:
          absl::StrAppend(&out_, static_cast<uint64_t>(a.value));
          break;
        case TraceView::Arg::Kind::kText:
          out_ += quoted_[static_cast<uint32_t>(a.value)];
          break;
        case TraceView::Arg::Kind::kBool:
          out_ += a.value != 0 ? "true" : "false";
          break;
      }
    }
    out_ += "}}";
    if (s.flow_in != 0) {
      BeginEvent();
      absl::StrAppend(
          &out_,
          "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":", s.flow_in,
          ",\"ts\":", Ts(s.start_ns), ",\"pid\":", s.pid, ",\"tid\":", s.tid, "}");
    }
  }

  const TraceView& view_;
  std::vector<std::string> quoted_;  // view_.strings as JSON strings
  PieceBuffer* pieces_ = nullptr;    // while Write() writes
  std::string out_;                  // what the sink has not been given yet
  bool first_event_ = true;
};

}  // namespace

std::string RenderChromeTrace(const Trace& trace, const ChromeTraceOptions& options) {
  return RenderChromeTrace(BuildTraceView(trace, options));
}

std::string RenderChromeTrace(const TraceView& view) {
  std::string out;
  StringByteSink sink(&out);
  WriteChromeTrace(view, sink);
  return out;
}

void WriteChromeTrace(const TraceView& view, ByteSink& out) { ChromeTraceWriter(view).Write(out); }

}  // namespace brrr
