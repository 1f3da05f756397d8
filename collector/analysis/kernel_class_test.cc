// Tests of the kernel-class table: every real kernel name in testdata/kernel_names.tsv gets the
// class written next to it, in its mangled and demangled spellings alike; and the function's own
// name decides before its template arguments.
#include "collector/analysis/kernel_class.h"

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace brrr {
namespace {

struct CorpusEntry {
  std::string expected;
  std::string name;
  std::string source;
  int line = 0;
};

std::vector<CorpusEntry> ReadCorpus() {
  std::vector<CorpusEntry> out;
  std::ifstream in(BRRR_KERNEL_NAMES_TSV);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const size_t a = line.find('\t');
    const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos) {
      ADD_FAILURE() << "line " << number << " has no three tab-separated columns: " << line;
      continue;
    }
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1), number});
  }
  return out;
}

TEST(KernelClass, EveryCorpusNameGetsItsClass) {
  const std::vector<CorpusEntry> corpus = ReadCorpus();
  ASSERT_GE(corpus.size(), 60u) << "corpus not found or truncated: " << BRRR_KERNEL_NAMES_TSV;
  std::map<std::string, int> per_class;
  for (const CorpusEntry& e : corpus) {
    EXPECT_EQ(KernelClassName(ClassifyKernel(e.name)), e.expected)
        << "line " << e.line << ": " << e.name << "\n  (" << e.source << ")";
    EXPECT_FALSE(e.source.empty()) << "line " << e.line << " does not say where the name is from";
    ++per_class[e.expected];
  }
  // Every class is exercised by at least two real names.
  for (int c = 0; c < static_cast<int>(KernelClass::kCount); ++c) {
    const std::string name(KernelClassName(static_cast<KernelClass>(c)));
    EXPECT_GE(per_class[name], 2) << name;
  }
}

TEST(KernelClass, MangledAndDemangledSpellingsAgree) {
  // _ZN2at6native29vectorized_elementwise_kernel... is the name CUPTI reports; the report shows
  // it demangled. Both must land in the same class.
  EXPECT_EQ(ClassifyKernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
                           "addIfEESt5arrayIPcLm3EEEEviT0_T1_"),
            KernelClass::kPointwise);
  EXPECT_EQ(ClassifyKernel("_Z23implicit_convolve_sgemmIffLi1024ELi5ELi5ELi3ELi3ELi3ELi1ELb0ELb1"
                           "ELb1EEviiiPKT_iPT0_S2_18kernel_conv_paramsyiffiPKS3_S7_bii"),
            KernelClass::kConvolution);
}

TEST(KernelClass, FunctionNameDecidesBeforeTemplateArguments) {
  // The functor names a softmax; the kernel is an elementwise loop.
  EXPECT_EQ(ClassifyKernel("void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::softmax_backward_functor<float> >(int)"),
            KernelClass::kPointwise);
  // A generic CUTLASS wrapper: its template argument decides (conv before gemm, flash before
  // the CUTLASS fallback).
  EXPECT_EQ(ClassifyKernel("void cutlass::Kernel<cutlass::conv::kernel::ImplicitGemmConvolution<"
                           "int> >(int)"),
            KernelClass::kConvolution);
  EXPECT_EQ(ClassifyKernel("void cutlass::device_kernel<flash::FlashAttnFwdSm90<int> >(int)"),
            KernelClass::kAttention);
  EXPECT_EQ(ClassifyKernel("void cutlass::device_kernel<my::Thing<int> >(int)"),
            KernelClass::kMatmul);
  // A Triton prefix decides over the fused op names that follow it.
  EXPECT_EQ(ClassifyKernel("triton_poi_fused__softmax_native_layer_norm_7"),
            KernelClass::kPointwise);
  // "normal" is not a normalization.
  EXPECT_EQ(ClassifyKernel("void at::native::normal_kernel(float*)"), KernelClass::kOther);
}

TEST(KernelClass, BaseNameDropsReturnTypeTemplatesParametersAndAnonymousNamespaces) {
  EXPECT_EQ(KernelBaseName("void at::native::(anonymous namespace)::Foo<int, 2>(float*, int)"),
            "at::native::anon::foo");
  EXPECT_EQ(KernelBaseName("void <unnamed>::softmax_warp_forward<float, (int)2>(T2 *"),
            "anon::softmax_warp_forward");
  EXPECT_EQ(KernelBaseName("flash_fwd_kernel"), "flash_fwd_kernel");
  EXPECT_EQ(KernelBaseName("void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_t"),
            "cutlass::kernel2");
  EXPECT_EQ(KernelBaseName(""), "");
}

TEST(KernelClass, ComputeAndBandwidthSidesAreDisjoint) {
  int compute = 0, bandwidth = 0;
  for (int c = 0; c < static_cast<int>(KernelClass::kCount); ++c) {
    const auto k = static_cast<KernelClass>(c);
    EXPECT_FALSE(IsComputeClass(k) && IsBandwidthClass(k)) << KernelClassName(k);
    compute += IsComputeClass(k);
    bandwidth += IsBandwidthClass(k);
  }
  EXPECT_EQ(compute, 3);
  EXPECT_EQ(bandwidth, 3);
  EXPECT_FALSE(IsComputeClass(KernelClass::kCommunication));
  EXPECT_FALSE(IsBandwidthClass(KernelClass::kOther));
}

}  // namespace
}  // namespace brrr
