// Tests of the ".nv_fatbin" probe: an nvcc-built program has device code, a plain C++ program
// and other files do not, and truncated or scrambled copies of the nvcc program never crash it.
#include "shim/device_code_probe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace brrr::shim {
namespace {

std::vector<char> ReadAll(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

std::string WriteTemp(const std::vector<char>& bytes, size_t size) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("brrr_probe_" + std::to_string(getpid()) + ".bin"))
          .string();
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(size));
  return path;
}

TEST(DeviceCodeProbeTest, NvccProgramHasDeviceCodeAndThisTestDoesNot) {
  EXPECT_TRUE(FileCarriesDeviceCode(BRRR_E2E_APP));
  EXPECT_FALSE(FileCarriesDeviceCode("/proc/self/exe"));  // a plain C++ test binary
  EXPECT_FALSE(FileCarriesDeviceCode("/nonexistent/brrr"));
  EXPECT_FALSE(FileCarriesDeviceCode("/dev/null"));
  EXPECT_FALSE(FileCarriesDeviceCode("/proc"));  // a directory
}

TEST(DeviceCodeProbeTest, TruncatedCopiesNeverCrashAndShortOnesSayNo) {
  const std::vector<char> app = ReadAll(BRRR_E2E_APP);
  ASSERT_GT(app.size(), 4096u);
  for (size_t size : {size_t{0}, size_t{3}, size_t{63}, size_t{64}, size_t{1000}, app.size() / 2,
                      app.size() - 1}) {
    const std::string path = WriteTemp(app, size);
    const bool found = FileCarriesDeviceCode(path.c_str());
    if (size < 1000) EXPECT_FALSE(found) << size;  // not even the section headers are there
    std::filesystem::remove(path);
  }
  const std::string whole = WriteTemp(app, app.size());
  EXPECT_TRUE(FileCarriesDeviceCode(whole.c_str()));
  std::filesystem::remove(whole);
}

TEST(DeviceCodeProbeTest, ScrambledHeadersNeverCrash) {
  std::vector<char> app = ReadAll(BRRR_E2E_APP);
  ASSERT_GT(app.size(), 64u);
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<char> copy = app;
    // Scramble the ELF header's offsets and counts (bytes 16..63) and a few random bytes.
    for (int k = 0; k < 4; ++k) copy[16 + rng() % 48] = static_cast<char>(rng());
    for (int k = 0; k < 8; ++k) copy[rng() % copy.size()] = static_cast<char>(rng());
    const std::string path = WriteTemp(copy, copy.size());
    (void)FileCarriesDeviceCode(path.c_str());  // any answer; it must return
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace brrr::shim
