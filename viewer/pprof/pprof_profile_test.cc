// Tests for the pprof export: the samples, their stacks (leaf first, CUDA's frames left out),
// functions with file and line, module mappings, labels, and a well-formed profile (every id and
// string index resolves) for the fully populated sample report; the gzip is a real gzip stream.
#include "viewer/pprof/pprof_profile.h"

#include <zlib.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/sample_report.h"
#include "viewer/gzip.h"

namespace brrr {
namespace {

namespace pb = perftools::profiles;
using ::testing::ElementsAre;

// What one sample reads as: its frames leaf first ("name file:line" or "name @module"), values and
// labels, resolved through the profile's tables (and checking that every reference resolves).
struct ReadSample {
  std::vector<std::string> frames;
  std::vector<int64_t> values;
  std::vector<std::string> labels;  // "key=value"
};

std::vector<ReadSample> Read(const pb::Profile& p) {
  const auto str = [&](int64_t i) {
    EXPECT_GE(i, 0);
    EXPECT_LT(i, p.string_table_size());
    return i >= 0 && i < p.string_table_size() ? p.string_table(static_cast<int>(i)) : "<bad>";
  };
  std::vector<ReadSample> out;
  for (const pb::Sample& s : p.sample()) {
    ReadSample r;
    EXPECT_EQ(s.value_size(), p.sample_type_size());
    r.values.assign(s.value().begin(), s.value().end());
    for (uint64_t id : s.location_id()) {
      EXPECT_GE(id, 1u);
      EXPECT_LE(id, static_cast<uint64_t>(p.location_size()));
      if (id < 1 || id > static_cast<uint64_t>(p.location_size())) continue;
      const pb::Location& l = p.location(static_cast<int>(id - 1));
      EXPECT_EQ(l.id(), id);
      EXPECT_EQ(l.line_size(), 1);
      const pb::Function& f = p.function(static_cast<int>(l.line(0).function_id() - 1));
      EXPECT_EQ(f.id(), l.line(0).function_id());
      std::string frame = str(f.name());
      if (f.filename() != 0) frame += " " + str(f.filename()) + ":" + std::to_string(l.line(0).line());
      if (l.mapping_id() != 0) {
        const pb::Mapping& m = p.mapping(static_cast<int>(l.mapping_id() - 1));
        EXPECT_EQ(m.id(), l.mapping_id());
        frame += " @" + str(m.filename());
      }
      r.frames.push_back(frame);
    }
    for (const pb::Label& l : s.label()) r.labels.push_back(str(l.key()) + "=" + str(l.str()));
    out.push_back(r);
  }
  return out;
}

Report Planted() {
  Report r;
  r.command = "./train";
  r.wall_ns = 5'000'000'000;
  ProcessIdentity p;
  p.pid = 4242;
  p.rank = 0;
  r.process = p;
  r.launch_sample_period = 8;
  // Two CUDA frames lead the stall's stack: left out, as in the folded stacks.
  r.stalls = {{"cudaMemcpy",
               "d2h_copy",
               500,
               2'000'000'000,
               {"cudaMemcpy (libcudart.so.13)", "cudart::inner (libcudart.so.13)",
                "loss_item (train.cc:42)", "step (train.py:97)", "main (train)"},
               2},
              {"cudaFree", "free_syncs_device", 3, 4'500'000, {}}};
  r.launch_sites = {{{"cudaLaunchKernel (libcudart.so.13)", "launch (model.cu:9)", "main (train)"},
                     800,
                     1,
                     "",
                     {{"square(float*, int)", 0, 800, 1'600'000}, {"gemm", 1, 16, 0}}}};
  return r;
}

TEST(PprofProfileTest, StallsDeviceTimeAndLaunchesOnTheirStacks) {
  const pb::Profile p = BuildPprofProfile(Planted());
  ASSERT_EQ(p.sample_type_size(), 3);
  EXPECT_EQ(p.string_table(0), "");
  EXPECT_EQ(p.string_table(static_cast<int>(p.sample_type(0).type())), "host_stall");
  EXPECT_EQ(p.string_table(static_cast<int>(p.sample_type(0).unit())), "nanoseconds");
  EXPECT_EQ(p.string_table(static_cast<int>(p.sample_type(1).type())), "device_time");
  EXPECT_EQ(p.string_table(static_cast<int>(p.sample_type(2).type())), "launches");
  EXPECT_EQ(p.string_table(static_cast<int>(p.sample_type(2).unit())), "count");
  EXPECT_EQ(p.string_table(static_cast<int>(p.default_sample_type())), "host_stall");
  EXPECT_EQ(p.duration_nanos(), 5'000'000'000);
  const std::vector<ReadSample> s = Read(p);
  ASSERT_EQ(s.size(), 4u);  // the 0 ns kernel row is no sample
  EXPECT_THAT(s[0].frames, ElementsAre("cudaMemcpy [d2h_copy]", "loss_item train.cc:42",
                                       "step train.py:97", "main @train"));
  EXPECT_THAT(s[0].values, ElementsAre(2'000'000'000, 0, 0));
  EXPECT_THAT(s[0].labels, ElementsAre("pid=4242", "rank=0", "reason=d2h_copy"));
  EXPECT_THAT(s[1].frames, ElementsAre("cudaFree [free_syncs_device]", "[no stack]"));
  EXPECT_THAT(s[1].values, ElementsAre(4'500'000, 0, 0));
  EXPECT_THAT(s[2].frames, ElementsAre("launch model.cu:9", "main @train"));
  EXPECT_THAT(s[2].values, ElementsAre(0, 0, 800));
  EXPECT_THAT(s[3].frames, ElementsAre("square(float*, int)", "launch model.cu:9", "main @train"));
  EXPECT_THAT(s[3].values, ElementsAre(0, 1'600'000, 0));
  EXPECT_THAT(s[3].labels, ElementsAre("pid=4242", "rank=0", "device=0"));
  // One function, location and mapping per distinct frame: "main (train)" is shared.
  EXPECT_EQ(p.mapping_size(), 1);
  EXPECT_EQ(s[0].frames.back(), s[2].frames.back());
  int mains = 0;
  for (const pb::Function& f : p.function()) mains += p.string_table(static_cast<int>(f.name())) == "main";
  EXPECT_EQ(mains, 1);
  ASSERT_GE(p.comment_size(), 1);
  EXPECT_THAT(p.string_table(static_cast<int>(p.comment(0))), ::testing::HasSubstr("1 in 8"));
}

TEST(PprofProfileTest, AJobsMergedRowsCarryNoPidAndAReportWithoutStallsOpensOnDeviceTime) {
  Report r = Planted();
  r.job.emplace();
  r.stalls.clear();
  const pb::Profile p = BuildPprofProfile(r);
  for (const ReadSample& s : Read(p)) {
    for (const std::string& label : s.labels) EXPECT_EQ(label.rfind("pid=", 0), std::string::npos);
  }
  EXPECT_EQ(p.string_table(static_cast<int>(p.default_sample_type())), "device_time");
}

TEST(PprofProfileTest, TheFullSampleReportIsWellFormed) {
  const pb::Profile p = BuildPprofProfile(SampleReport());
  EXPECT_FALSE(Read(p).empty());  // every id and string index checked inside
  for (int i = 0; i < p.location_size(); ++i) EXPECT_EQ(p.location(i).id(), static_cast<uint64_t>(i + 1));
}

std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

TEST(PprofProfileTest, RenderedBytesAreTheProfileGzipped) {
  const absl::StatusOr<std::string> gz = RenderPprof(Planted());
  ASSERT_TRUE(gz.ok()) << gz.status();
  ASSERT_GE(gz->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);  // gzip's magic (RFC 1952)
  EXPECT_EQ(static_cast<unsigned char>((*gz)[1]), 0x8b);
  pb::Profile back;
  ASSERT_TRUE(back.ParseFromString(Gunzip(*gz)));
  EXPECT_EQ(back.SerializeAsString(), BuildPprofProfile(Planted()).SerializeAsString());
}

TEST(GzipTest, EmptyAndLargeInputsRoundTrip) {
  for (const std::string& in : {std::string(), std::string(300'000, 'x') + "tail"}) {
    const absl::StatusOr<std::string> gz = Gzip(in);
    ASSERT_TRUE(gz.ok());
    EXPECT_EQ(Gunzip(*gz), in);
  }
}

}  // namespace
}  // namespace brrr
