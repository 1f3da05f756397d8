// Kernel classes: what kind of work a kernel does, inferred from its name alone (any GPU, no
// privileges, no counters). The classes say which side of the roofline a kernel's time is on:
// matmul, convolution and attention can be compute-bound; pointwise, reduction/normalization and
// copies are bandwidth-bound by construction (a few flops per byte moved, far below any GPU's ridge
// point). The rules are one table in kernel_class.cc, with the reasoning for each class; they are
// tested against real kernel names in testdata/kernel_names.tsv.
//
// Must never: allocate or demangle per launch (callers classify each distinct name once, at report
// time), or claim a class it cannot read from the name (unknown names are "other").
#ifndef BRRR_COLLECTOR_ANALYSIS_KERNEL_CLASS_H_
#define BRRR_COLLECTOR_ANALYSIS_KERNEL_CLASS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace brrr {

enum class KernelClass : uint8_t {
  kMatmul = 0,     // "matmul"
  kConvolution,    // "convolution"
  kAttention,      // "attention"
  kPointwise,      // "pointwise"
  kReduction,      // "reduction" (reductions and normalizations)
  kCopy,           // "copy" (copy, layout transform, memset kernels)
  kCommunication,  // "communication"
  kOther,          // "other"
  kCount,
};

// The report's name of a class ("matmul", "convolution", ...).
std::string_view KernelClassName(KernelClass c);

// True for the classes whose time counts as compute-capable (matmul, convolution, attention).
bool IsComputeClass(KernelClass c);
// True for the classes that are bandwidth-bound by construction (pointwise, reduction, copy).
bool IsBandwidthClass(KernelClass c);

// The class of a kernel from its name: mangled ("_ZN2at6native...") or demangled, with or without
// template arguments and parameters. The function's own name decides first (so the functor in
// `vectorized_elementwise_kernel<4, softmax_functor>` does not make it a reduction); only when it
// says nothing (`cutlass::Kernel<...>`, `cutlass::device_kernel<flash::...>`) do its template
// arguments decide.
KernelClass ClassifyKernel(std::string_view name);

// The function's own name, lower-cased: "void at::native::(anonymous namespace)::foo<int>(int*)"
// -> "at::native::anon::foo". Exposed for tests.
std::string KernelBaseName(std::string_view demangled);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_KERNEL_CLASS_H_
