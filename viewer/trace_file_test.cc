// Tests for the trace events section (type 2): the documented payload layout, the round trip
// through a .brrr file next to the report, the reader's checks (versions, counts, indexes, enums,
// a second trace section) and corruption: every truncation and thousands of deterministic random
// changes give an error or the original trace, never a crash. A trace that decodes always exports.
// Must never: use a nondeterministic seed (failures must reproduce).
#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/chrome_trace.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/byte_order.h"
#include "viewer/format/crc32.h"
#include "viewer/format/report_json.h"
#include "viewer/format/sample_report.h"
#include "viewer/format/sample_trace.h"
#include "viewer/format/section_bytes_for_test.h"
#include "viewer/format/strict_json.h"
#include "viewer/format/trace_payload.h"
#include "viewer/perfetto/perfetto_read_for_test.h"
#include "viewer/perfetto/perfetto_trace.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

// `p` (a current payload holding `host_calls` host calls) as payload version 2 wrote it: host
// calls of 48 bytes, without the correlation id.
std::string AsVersion2(std::string p, size_t host_calls) {
  for (size_t i = host_calls; i-- > 0;) p.erase(88 + i * 56 + 48, 8);
  p[0] = 2;
  return p;
}

// A file with the sample report and the given raw trace payloads.
std::string FileWithTracePayloads(const std::vector<std::string>& payloads) {
  std::string out = "BRRRFILE";
  AppendLe32(out, 1);
  AppendLe32(out, static_cast<uint32_t>(1 + payloads.size()));
  out += Section(1, RenderJsonCompact(SampleReport()));
  for (const std::string& p : payloads) out += Section(2, p);
  return out;
}

TEST(TracePayloadTest, LayoutMatchesTheDocumentedOffsets) {
  Trace t = SampleTrace();
  t.host_calls[1].correlation_id = 12;
  const std::string p = EncodeTracePayload(t);
  EXPECT_EQ(LoadLe32(p.data() + 0), 3u);     // payload_version
  EXPECT_EQ(LoadLe32(p.data() + 4), 4242u);  // app_pid
  EXPECT_EQ(LoadLe64(p.data() + 8), 12u);    // cap
  EXPECT_EQ(LoadLe64(p.data() + 16), 3u);    // omitted host calls
  EXPECT_EQ(LoadLe64(p.data() + 24), 5u);    // omitted device ops
  EXPECT_EQ(LoadLe64(p.data() + 32), 0u);    // omitted API activities
  EXPECT_EQ(LoadLe64(p.data() + 40), 1u);    // omitted sync activities
  EXPECT_EQ(LoadLe64(p.data() + 48), 3u);    // host calls
  EXPECT_EQ(LoadLe64(p.data() + 56), 3u);    // device ops
  EXPECT_EQ(LoadLe64(p.data() + 64), 2u);    // API activities
  EXPECT_EQ(LoadLe64(p.data() + 72), 1u);    // sync activities
  EXPECT_EQ(LoadLe64(p.data() + 80), 4u);    // names
  // Header 88, host calls 3 x 56, device ops 3 x 48, API 2 x 40, sync 1 x 32, then the names.
  const size_t host = 88, device = host + 3 * 56, api = device + 3 * 48, sync = api + 2 * 40,
               names = sync + 32;
  // Host call 1: enter 6000, exit 9500, stream 0x7f00, bytes 1 MiB, tid 78, stack 0, result 700,
  // api 22, copy kind 2, correlation id 12.
  EXPECT_EQ(LoadLe64(p.data() + host + 56 + 0), 6000u);
  EXPECT_EQ(LoadLe64(p.data() + host + 56 + 16), 0x7f00u);
  EXPECT_EQ(LoadLe32(p.data() + host + 56 + 32), 78u);
  EXPECT_EQ(LoadLe32(p.data() + host + 56 + 40), 700u);
  EXPECT_EQ(static_cast<uint8_t>(p[host + 56 + 44]), 22);
  EXPECT_EQ(static_cast<uint8_t>(p[host + 56 + 46]), 2);
  EXPECT_EQ(LoadLe32(p.data() + host + 56 + 48), 12u);
  // Host call 2's enter is -50, two's complement.
  EXPECT_EQ(LoadLe64(p.data() + host + 112), static_cast<uint64_t>(int64_t{-50}));
  // Device op 1 (the copy): device 1 at +24, stream 13 at +28, correlation 12 at +32, no name at
  // +36, kind 1 at +40, copy kind 2 at +41.
  EXPECT_EQ(LoadLe32(p.data() + device + 48 + 24), 1u);
  EXPECT_EQ(LoadLe32(p.data() + device + 48 + 28), 13u);
  EXPECT_EQ(LoadLe32(p.data() + device + 48 + 32), 12u);
  EXPECT_EQ(LoadLe32(p.data() + device + 48 + 36), 0xffffffffu);
  EXPECT_EQ(p[device + 48 + 40], 1);
  EXPECT_EQ(p[device + 48 + 41], 2);
  // API activity 1 is a driver call: cbid 41 at +16, flag at +32.
  EXPECT_EQ(LoadLe32(p.data() + api + 40 + 16), 41u);
  EXPECT_EQ(p[api + 40 + 32], 1);
  EXPECT_EQ(LoadLe32(p.data() + sync + 16), 3u);
  EXPECT_EQ(LoadLe32(p.data() + names), 9u);  // "_Z4tinyPf"
  EXPECT_EQ(p.substr(names + 4, 9), "_Z4tinyPf");
  const size_t nvtx = names + 4 + 9 + 4 + std::string("weird \"name\"\n\\ \xc3\xa9").size() + 4 +
                      4 + 4 + 9;  // then "step" and "my domain"
  EXPECT_EQ(LoadLe64(p.data() + nvtx), 3u);       // NVTX events
  EXPECT_EQ(LoadLe64(p.data() + nvtx + 8), 4u);   // omitted NVTX events
  // The mark (third): time 5500, range 0, tid 78 at +16, message 2 at +20, domain 3 at +24, op 5.
  const size_t mark = nvtx + 16 + 2 * 32;
  EXPECT_EQ(LoadLe64(p.data() + mark), 5500u);
  EXPECT_EQ(LoadLe32(p.data() + mark + 16), 78u);
  EXPECT_EQ(LoadLe32(p.data() + mark + 20), 2u);
  EXPECT_EQ(LoadLe32(p.data() + mark + 24), 3u);
  EXPECT_EQ(p[mark + 28], 5);
  EXPECT_EQ(p.size(), mark + 32);
}

// How the shim saw a call and its CUPTI callback id: offsets 47 and 52, read back as written.
TEST(TraceFileTest, ACallbackCallKeepsItsSourceAndCallbackId) {
  Trace t = SampleTrace();
  t.host_calls[1].api = 0;
  t.host_calls[1].source = kTraceCallDriverCallback;
  t.host_calls[1].cbid = 307;
  const std::string p = EncodeTracePayload(t);
  const size_t second = 88 + 56;
  EXPECT_EQ(p[second + 47], 2);
  EXPECT_EQ(LoadLe32(p.data() + second + 52), 307u);
  EXPECT_EQ(p[88 + 47], 0);  // the hooked ones
  EXPECT_EQ(LoadLe32(p.data() + 88 + 52), 0u);
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(FileWithTracePayloads({p}), "f");
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_TRUE(contents->trace.has_value());
  EXPECT_EQ(*contents->trace, t);
}

TEST(TraceFileTest, RoundTripsNextToTheReport) {
  const Trace t = SampleTrace();
  const std::string bytes = SerializeBrrrFile(SampleReport(), &t);
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(bytes, "f");
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->report, SampleReport());
  ASSERT_TRUE(contents->trace.has_value());
  EXPECT_EQ(*contents->trace, t);
  // The report-only reader still reads the file, skipping the trace.
  absl::StatusOr<Report> report = ParseBrrrFile(bytes, "f");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(*report, SampleReport());
}

TEST(TraceFileTest, FileWithoutTraceHasNone) {
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(SerializeBrrrFile(SampleReport()), "f");
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_FALSE(contents->trace.has_value());
}

TEST(TraceFileTest, IndependentlyBuiltFileReadsBack) {
  absl::StatusOr<BrrrContents> contents =
      ParseBrrrContents(FileWithTracePayloads({EncodeTracePayload(SampleTrace())}), "f");
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->trace->names[0], "_Z4tinyPf");
}

TEST(TraceFileTest, SecondTraceSectionIsAnError) {
  const std::string p = EncodeTracePayload(SampleTrace());
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(FileWithTracePayloads({p, p}), "f");
  ASSERT_FALSE(contents.ok());
  EXPECT_THAT(contents.status().message(), HasSubstr("a second trace section"));
}

// Decodes `payload` after `edit` changed it; returns the error message ("" when it decoded).
template <typename Edit>
std::string DecodeError(Edit edit) {
  std::string p = EncodeTracePayload(SampleTrace());
  edit(p);
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(FileWithTracePayloads({p}), "f");
  return contents.ok() ? "" : std::string(contents.status().message());
}

void PutLe32(std::string& p, size_t at, uint32_t v) {
  std::string le;
  AppendLe32(le, v);
  p.replace(at, 4, le);
}
void PutLe64(std::string& p, size_t at, uint64_t v) {
  std::string le;
  AppendLe64(le, v);
  p.replace(at, 8, le);
}

TEST(TraceFileTest, ReaderChecksEveryField) {
  EXPECT_THAT(DecodeError([](std::string& p) { PutLe32(p, 0, 0); }),
              HasSubstr("invalid trace payload version 0"));
  EXPECT_THAT(DecodeError([](std::string& p) { PutLe32(p, 0, 4); }),
              HasSubstr("newer brrr (trace payload version 4)"));
  // Version 1 has no NVTX part: the NVTX bytes are then unexpected.
  EXPECT_THAT(DecodeError([](std::string& p) {
                p = AsVersion2(p, 3);
                PutLe32(p, 0, 1);
              }),
              HasSubstr("112 unexpected bytes after the last name"));
  EXPECT_THAT(DecodeError([](std::string& p) { PutLe64(p, 8, 8); }),
              HasSubstr("9 events but the cap is 8"));
  EXPECT_THAT(DecodeError([](std::string& p) { PutLe64(p, 48, ~uint64_t{0}); }),
              HasSubstr("exceed the limit"));
  EXPECT_THAT(DecodeError([](std::string& p) {
                PutLe64(p, 8, 100);
                PutLe64(p, 56, 10);
              }),
              HasSubstr("truncated"));
  EXPECT_THAT(DecodeError([](std::string& p) { p += "xy"; }),
              HasSubstr("2 unexpected bytes after the last NVTX event"));
  // The NVTX part: op, name indexes, the cap, truncation.
  const size_t end = EncodeTracePayload(SampleTrace()).size();
  EXPECT_THAT(DecodeError([&](std::string& p) { p[end - 4] = 6; }), HasSubstr("NVTX op 6"));
  EXPECT_THAT(DecodeError([&](std::string& p) { PutLe32(p, end - 8, 4); }),
              HasSubstr("name index 4 but only 4 names"));
  EXPECT_THAT(DecodeError([&](std::string& p) { PutLe64(p, end - 112, 4); }),
              HasSubstr("4 NVTX events with 9 others exceed the cap of 12"));
  EXPECT_THAT(DecodeError([&](std::string& p) { PutLe64(p, 8, 13); PutLe64(p, end - 112, 4); }),
              HasSubstr("truncated: 4 NVTX events need 128 bytes, 96 remain"));
  EXPECT_THAT(DecodeError([&](std::string& p) { p.resize(end - 100); }),
              HasSubstr("truncated: the NVTX count"));
  EXPECT_THAT(DecodeError([](std::string& p) { PutLe64(p, 80, 1); }),
              HasSubstr("name index 1 but only 1 names"));
  EXPECT_THAT(DecodeError([](std::string& p) { p[88 + 56 + 47] = 3; }),
              HasSubstr("host call source 3 is not 0..2"));
  const size_t device = 88 + 3 * 56;
  EXPECT_THAT(DecodeError([&](std::string& p) { p[device + 40] = 3; }),
              HasSubstr("device op kind 3 is not 0..2"));
  EXPECT_THAT(DecodeError([&](std::string& p) { PutLe32(p, device + 36, 4); }),
              HasSubstr("name index 4 but only 4 names"));
  const size_t api = device + 3 * 48;
  EXPECT_THAT(DecodeError([&](std::string& p) { p[api + 32] = 2; }), HasSubstr("driver flag 2"));
  const size_t names = api + 2 * 40 + 32;
  EXPECT_THAT(DecodeError([&](std::string& p) { PutLe32(p, names, 5000); }),
              HasSubstr("exceeds the limit of 4096"));
  EXPECT_THAT(DecodeError([&](std::string& p) { PutLe32(p, names, 4000); }),
              HasSubstr("truncated: name 0"));
  EXPECT_EQ(DecodeError([](std::string&) {}), "");
}

TEST(TraceFileTest, VersionOnePayloadWithoutNvtxReads) {
  Trace t = SampleTrace();
  t.nvtx.clear();
  t.omitted_nvtx = 0;
  std::string p = AsVersion2(EncodeTracePayload(t), t.host_calls.size());
  p.resize(p.size() - 16);  // a version 1 payload ends after the names
  PutLe32(p, 0, 1);
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(FileWithTracePayloads({p}), "f");
  ASSERT_TRUE(contents.ok()) << contents.status();
  for (TraceHostCall& h : t.host_calls) h.correlation_id = 0;  // version 1 has none
  EXPECT_EQ(*contents->trace, t);
}

TEST(TraceFileTest, VersionTwoPayloadReadsWithoutCorrelationIds) {
  Trace t = SampleTrace();
  const std::string p = AsVersion2(EncodeTracePayload(t), t.host_calls.size());
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(FileWithTracePayloads({p}), "f");
  ASSERT_TRUE(contents.ok()) << contents.status();
  for (TraceHostCall& h : t.host_calls) h.correlation_id = 0;
  EXPECT_EQ(*contents->trace, t);
}

TEST(TraceFileTest, NewerPayloadVersionIsUnimplementedAndNamesTheFile) {
  std::string p = EncodeTracePayload(SampleTrace());
  PutLe32(p, 0, 7);
  absl::StatusOr<BrrrContents> contents = ParseBrrrContents(FileWithTracePayloads({p}), "x.brrr");
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(contents.status().message(), HasSubstr("x.brrr: "));
}

TEST(TraceCorruptionTest, EveryTruncationOfTheFileIsAnError) {
  const Trace t = SampleTrace();
  const std::string bytes = SerializeBrrrFile(SampleReport(), &t);
  for (size_t length = 0; length < bytes.size(); ++length) {
    ASSERT_FALSE(ParseBrrrContents(bytes.substr(0, length), "cut").ok()) << length;
  }
}

TEST(TraceCorruptionTest, EveryTruncationOfThePayloadIsAnError) {
  const std::string p = EncodeTracePayload(SampleTrace());
  for (size_t length = 0; length < p.size(); ++length) {
    ASSERT_FALSE(DecodeTracePayload(p.substr(0, length)).ok()) << length;
  }
}

TEST(TraceCorruptionTest, RandomByteChangesInTheFileAreDetected) {
  const Trace t = SampleTrace();
  const std::string original = SerializeBrrrFile(SampleReport(), &t);
  std::mt19937_64 rng(31337);
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = original;
    std::set<size_t> positions;
    const size_t changes = 1 + rng() % 4;
    while (positions.size() < changes) positions.insert(rng() % bytes.size());
    for (size_t pos : positions) {
      bytes[pos] = static_cast<char>(bytes[pos] ^ static_cast<char>(1 + rng() % 255));
    }
    absl::StatusOr<BrrrContents> c = ParseBrrrContents(bytes, "flip");
    if (c.ok()) {
      ++accepted;
      EXPECT_EQ(c->trace, t);
    }
  }
  EXPECT_EQ(accepted, 0);
}

// Changes inside the payload behind a valid CRC: the decoder itself must cope, and whatever it
// accepts must export as valid JSON with one "X" event per kept event, and as a well-formed
// Perfetto trace with the same slices.
TEST(TraceCorruptionTest, RandomPayloadChangesBehindAValidCrcNeverCrash) {
  const std::string original = EncodeTracePayload(SampleTrace());
  std::mt19937_64 rng(4711);
  int decoded = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::string p = original;
    switch (trial % 3) {
      case 0:
        for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i) {
          p[rng() % p.size()] = static_cast<char>(rng());
        }
        break;
      case 1:
        p.insert(rng() % p.size(), std::string(1 + rng() % 48, static_cast<char>(rng())));
        break;
      default:
        p.erase(rng() % p.size(), 1 + rng() % 48);
        break;
    }
    absl::StatusOr<BrrrContents> c = ParseBrrrContents(FileWithTracePayloads({p}), "m");
    if (!c.ok()) {
      EXPECT_FALSE(c.status().message().empty());
      continue;
    }
    ++decoded;
    const std::string json = RenderChromeTrace(*c->trace);
    absl::StatusOr<nlohmann::json> doc = ParseStrictJson(json);
    ASSERT_TRUE(doc.ok()) << doc.status();
    size_t complete = 0;
    for (const nlohmann::json& e : doc->at("traceEvents")) {
      complete += e.at("ph") == "X" && e.at("cat") != "nvtx";
    }
    EXPECT_EQ(complete, c->trace->kept() - c->trace->nvtx.size());
    // The Perfetto export of the same reads back well formed, with a BEGIN per "X" event.
    const perfetto_test::ReadTrace read =
        perfetto_test::ReadPerfettoTrace(RenderPerfettoTrace(*c->trace));
    EXPECT_THAT(read.errors, ::testing::IsEmpty());
    size_t slices = 0;
    for (const perfetto_test::ReadSlice& s : read.slices) {
      slices += !s.instant && s.category != "nvtx";
    }
    EXPECT_EQ(slices, complete);
  }
  EXPECT_GT(decoded, 0);  // value-only changes (timestamps, ids) keep the payload valid
}

}  // namespace
}  // namespace brrr
