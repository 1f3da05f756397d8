// Tests for the Chrome trace export: the document parses with the viewer's strict JSON parser, has
// one "X" event per recorded event on the documented pids and tids, exact microsecond times,
// flow arrows per correlation id, and metadata with the omitted counts.
#include "viewer/chrome_trace.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/sample_trace.h"
#include "viewer/format/strict_json.h"

namespace brrr {
namespace {

using Json = nlohmann::json;

// nlohmann's own tree builder, except that a number with a fraction is kept as its literal text
// (a string): the tests check the exact microsecond figures, which a double cannot always hold
// ("9223372036854775.857").
class LiteralFractions : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  using json_sax_dom_parser::json_sax_dom_parser;
  bool number_float(Json::number_float_t /*value*/, const Json::string_t& literal) {
    Json::string_t text = literal;
    return string(text);
  }
};

// The document, after checking that the viewer's strict JSON reader accepts it.
Json Parse(const std::string& text) {
  absl::StatusOr<Json> strict = ParseStrictJson(text);
  EXPECT_TRUE(strict.ok()) << strict.status() << "\n" << text;
  Json doc;
  LiteralFractions builder(doc, /*allow_exceptions_=*/false);
  if (!Json::sax_parse(text, &builder)) return Json();
  return doc;
}

// The member `key` of `obj`, or nullptr (also when `obj` is null or not an object).
const Json* Find(const Json* obj, const std::string& key) {
  if (obj == nullptr || !obj->is_object()) return nullptr;
  const auto it = obj->find(key);
  return it == obj->end() ? nullptr : &*it;
}

std::vector<const Json*> EventsWithPhase(const Json& doc, const std::string& ph) {
  std::vector<const Json*> out;
  const Json* events = Find(&doc, "traceEvents");
  if (events == nullptr || !events->is_array()) return out;
  for (const Json& e : *events) {
    const Json* p = Find(&e, "ph");
    if (p != nullptr && *p == ph) out.push_back(&e);
  }
  return out;
}

// A member as written: a string's text, a number's digits.
std::string Text(const Json* e, const std::string& key) {
  const Json* v = Find(e, key);
  if (v == nullptr) return "<absent>";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

const Json* FindByName(const std::vector<const Json*>& events, const std::string& name) {
  for (const Json* e : events)
    if (Text(e, "name") == name) return e;
  return nullptr;
}

TEST(ChromeTraceTest, OneCompleteEventPerRecordedEvent) {
  const Json doc = Parse(RenderChromeTrace(SampleTrace()));
  const auto complete = EventsWithPhase(doc, "X");
  // 3 host calls + 3 device ops + 2 API activities + 1 sync activity in SampleTrace, and its one
  // NVTX push/pop pair (a slice; its mark is an instant).
  EXPECT_EQ(complete.size(), 10u);
  int host = 0, gpu = 0;
  for (const Json* e : complete) {
    if (Text(e, "pid") == "4242") ++host;
    if (Text(e, "pid") == std::to_string(kGpuPidBase) ||
        Text(e, "pid") == std::to_string(kGpuPidBase + 1))
      ++gpu;
  }
  EXPECT_EQ(host, 7);
  EXPECT_EQ(gpu, 3);
}

TEST(ChromeTraceTest, MetadataSaysHowManyEventsWereOmitted) {
  const Json doc = Parse(RenderChromeTrace(SampleTrace()));
  const Json* other = Find(&doc, "otherData");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(Text(other, "events_omitted"), "13");  // 3 + 5 + 0 + 1 + 4 NVTX
  EXPECT_EQ(Text(other, "omitted_device_ops"), "5");
  EXPECT_EQ(Text(other, "trace_cap"), "12");
  EXPECT_EQ(Text(other, "events_kept"), "12");
  EXPECT_EQ(Text(other, "time_origin_ns"), "-50");
}

TEST(ChromeTraceTest, HostAndDeviceEventsLandOnTheirRowsWithExactTimes) {
  ChromeTraceOptions options;
  options.process_name = "./app --flag";
  options.host_api_name = [](uint16_t api) { return "api#" + std::to_string(api); };
  options.cupti_call_name = [](bool driver, uint32_t cbid) {
    return std::string(driver ? "drv#" : "rt#") + std::to_string(cbid);
  };
  const Json doc = Parse(RenderChromeTrace(SampleTrace(), options));
  const auto complete = EventsWithPhase(doc, "X");
  // Origin is the earliest time, -50 ns: the first host call (1000..5000 ns) starts at 1.050 us.
  const Json* launch = FindByName(complete, "api#3");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(Text(launch, "ts"), "1.050");
  EXPECT_EQ(Text(launch, "dur"), "4.000");
  EXPECT_EQ(Text(launch, "tid"), "77");
  EXPECT_EQ(Text(launch, "cat"), "host");
  // The extreme record: its duration does not overflow.
  const Json* extreme = FindByName(complete, "api#65535");
  ASSERT_NE(extreme, nullptr);
  EXPECT_EQ(Text(extreme, "ts"), "0.000");
  EXPECT_EQ(Text(extreme, "dur"), "9223372036854775.857");
  // The kernel: demangled, GPU 0's process, its stream as the row.
  const Json* kernel = FindByName(complete, "tiny(float*)");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(Text(kernel, "pid"), std::to_string(kGpuPidBase));
  EXPECT_EQ(Text(kernel, "tid"), "7");
  EXPECT_EQ(Text(kernel, "ts"), "7.050");
  EXPECT_EQ(Text(kernel, "cat"), "kernel");
  // The copy has no name: it is called by its kind, on GPU 1.
  const Json* copy = FindByName(complete, "memcpy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(Text(copy, "pid"), std::to_string(kGpuPidBase + 1));
  EXPECT_EQ(Text(copy, "tid"), "13");
  // A name needing escapes survives; an op that ends before it starts lasts 0.
  const Json* weird = FindByName(complete, "weird \"name\"\n\\ \xc3\xa9");
  ASSERT_NE(weird, nullptr);
  EXPECT_EQ(Text(weird, "dur"), "0.000");
  EXPECT_NE(FindByName(complete, "rt#211"), nullptr);
  EXPECT_NE(FindByName(complete, "drv#41"), nullptr);
  // A host call seen through a CUPTI callback (no api) is named by its callback id.
  Trace callback = SampleTrace();
  callback.host_calls[0].api = 0;
  callback.host_calls[0].source = kTraceCallDriverCallback;
  callback.host_calls[0].cbid = 307;
  const Json callback_doc = Parse(RenderChromeTrace(callback, options));
  const auto named = EventsWithPhase(callback_doc, "X");
  const Json* driver_call = FindByName(named, "drv#307");
  ASSERT_NE(driver_call, nullptr);
  EXPECT_EQ(Text(driver_call, "cat"), "host");
  EXPECT_EQ(Text(Find(driver_call, "args"), "cbid"), "307");
  EXPECT_EQ(FindByName(named, "api#0"), nullptr);
  // Row titles.
  const auto meta = EventsWithPhase(doc, "M");
  std::vector<std::string> titles;
  for (const Json* m : meta) titles.push_back(Text(Find(m, "args"), "name"));
  EXPECT_THAT(titles,
              ::testing::IsSupersetOf({"./app --flag", "GPU 0", "GPU 1", "stream 7", "stream 13"}));
  // The viewers add " (pid N)" to a process's title: the title does not say it again.
  for (const std::string& t : titles) EXPECT_THAT(t, ::testing::Not(::testing::HasSubstr("pid")));
  // CUPTI's synchronization records are named by their type (3: a stream synchronize).
  const Json* sync = FindByName(complete, "stream synchronize");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(Text(sync, "cat"), "sync");
}

TEST(ChromeTraceTest, FlowEventsLinkEachCorrelatedCallToItsFirstDeviceOp) {
  const Json doc = Parse(RenderChromeTrace(SampleTrace()));
  const auto starts = EventsWithPhase(doc, "s");
  const auto finishes = EventsWithPhase(doc, "f");
  ASSERT_EQ(starts.size(), 2u);  // correlation ids 11 (kernel) and 12 (copy)
  ASSERT_EQ(finishes.size(), 2u);
  EXPECT_EQ(Text(starts[0], "id"), "11");
  EXPECT_EQ(Text(finishes[0], "id"), "11");
  EXPECT_EQ(Text(finishes[0], "pid"), std::to_string(kGpuPidBase));
  EXPECT_EQ(Text(finishes[0], "ts"), "7.050");
  EXPECT_EQ(Text(finishes[1], "pid"), std::to_string(kGpuPidBase + 1));
}

// A host call whose CUPTI record was folded into it (the recorder keeps the call once) carries
// the correlation id and draws the arrow to its kernel itself, from its own row.
TEST(ChromeTraceTest, AHostCallWithAFoldedRecordDrawsItsOwnFlow) {
  Trace t = SampleTrace();
  t.api_activities.erase(t.api_activities.begin());  // the runtime record of correlation 11 ...
  t.host_calls[0].correlation_id = 11;                // ... folded into its hooked call
  const Json doc = Parse(RenderChromeTrace(t));
  const auto starts = EventsWithPhase(doc, "s");
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(Text(starts[0], "id"), "11");
  EXPECT_EQ(Text(starts[0], "tid"), "77");
  EXPECT_EQ(Text(starts[0], "ts"), "1.050");  // the host call's entry (from the earliest, -50 ns)
  EXPECT_EQ(Text(starts[1], "id"), "12");
}

TEST(ChromeTraceTest, EmptyTraceIsAValidDocumentWithoutEvents) {
  Trace empty;
  empty.cap = 10;
  empty.omitted_host_calls = 4;
  const Json doc = Parse(RenderChromeTrace(empty));
  EXPECT_TRUE(EventsWithPhase(doc, "X").empty());
  EXPECT_EQ(Text(Find(&doc, "otherData"), "events_omitted"), "4");
}

}  // namespace
}  // namespace brrr

namespace brrr {
namespace {

TEST(ChromeTraceTest, EveryThreadRowIsNamed) {
  Trace t = SampleTrace();
  t.host_calls[0].tid = t.app_pid;              // the main thread
  t.api_activities.push_back({1, 2, 5, 999, 0, 0, false});  // a CUPTI-only thread
  const Json doc = Parse(RenderChromeTrace(t));
  std::vector<std::string> names;
  for (const Json* e : EventsWithPhase(doc, "M")) {
    if (Text(e, "name") != "thread_name" || Text(e, "pid") != std::to_string(t.app_pid)) continue;
    names.push_back(Text(e, "tid") + "=" + Text(Find(e, "args"), "name"));
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre(
                         "0=CUDA synchronization (CUPTI)", "4242=main thread 4242", "78=thread 78",
                         "4294967295=thread 4294967295", "77=CUDA API (CUPTI thread 77)",
                         "999=CUDA API (CUPTI thread 999)"));
}

TEST(ChromeTraceTest, StallsAreMarkedByTheGivenRule) {
  ChromeTraceOptions options;
  options.stall_reason = [](const TraceHostCall& h) {
    return h.api == 22 ? std::string("d2h_copy") : std::string();
  };
  const Json doc = Parse(RenderChromeTrace(SampleTrace(), options));
  int stalls = 0;
  for (const Json* e : EventsWithPhase(doc, "X")) {
    if (Text(e, "cat") != "host,stall") continue;
    ++stalls;
    EXPECT_EQ(Text(e, "ts"), "6.050");  // the api-22 call: 6000 ns, origin -50 ns
    EXPECT_EQ(Text(e, "cname"), "terrible");
    EXPECT_EQ(Text(Find(e, "args"), "stall"), "d2h_copy");
  }
  EXPECT_EQ(stalls, 1);
  std::vector<const Json*> instants;
  for (const Json* e : EventsWithPhase(doc, "i")) {
    if (Text(e, "cat") == "stall") instants.push_back(e);
  }
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(Text(instants[0], "name"), "stall: d2h_copy");
  EXPECT_EQ(Text(instants[0], "tid"), "78");
  // Without a rule nothing is marked.
  const Json plain = Parse(RenderChromeTrace(SampleTrace()));
  for (const Json* e : EventsWithPhase(plain, "i")) EXPECT_EQ(Text(e, "cat"), "nvtx");
}

}  // namespace
}  // namespace brrr

namespace brrr {
namespace {

TEST(ChromeTraceTest, NvtxRangesAreSlicesAndMarksInstants) {
  Trace t = SampleTrace();
  // An unclosed push and a start/end pair in another domain, besides the sample's push/pop "step"
  // on 77 and the mark "my domain:step" on 78.
  t.nvtx.push_back({9'700, 0, 78, kNoTraceName, kNoTraceName, 1});
  t.nvtx.push_back({1'000, 5, 78, 2, 3, 3});
  t.nvtx.push_back({2'000, 5, 77, kNoTraceName, kNoTraceName, 4});
  const Json doc = Parse(RenderChromeTrace(t));
  std::vector<std::string> slices;
  for (const Json* e : EventsWithPhase(doc, "X")) {
    if (Text(e, "cat") != "nvtx") continue;
    slices.push_back(Text(e, "name") + "@" + Text(e, "tid") + " " + Text(e, "ts") + "+" +
                     Text(e, "dur") + (Find(Find(e, "args"), "unclosed") ? " unclosed" : ""));
  }
  // Origin -50 ns; the trace's last event ends at INT64_MAX (the sample's extreme host call).
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[0], "step@77 0.950+8.700");
  EXPECT_THAT(slices[1], ::testing::StartsWith("(unnamed)@78 9.750+"));
  EXPECT_THAT(slices[1], ::testing::EndsWith(" unclosed"));
  const auto marks = EventsWithPhase(doc, "i");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(Text(marks[0], "name"), "my domain:step");
  const auto begins = EventsWithPhase(doc, "b");
  const auto ends = EventsWithPhase(doc, "e");
  ASSERT_EQ(begins.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(Text(begins[0], "name"), "my domain:step");
  EXPECT_EQ(Text(begins[0], "id"), "5");
  EXPECT_EQ(Text(begins[0], "ts"), "1.050");
  EXPECT_EQ(Text(ends[0], "ts"), "2.050");
  const Json* other = Find(&doc, "otherData");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(Text(other, "omitted_nvtx"), "4") << RenderChromeTrace(t).substr(0, 400);
}

}  // namespace
}  // namespace brrr
