// A do-nothing CUDA runtime (soname libcudart.so.13, the real version node) exporting just what
// shim_benchmark imports, each returning success at once. Preloading the shim over it measures
// the shim's own added cost per call without the simulated runtime's microseconds of noise.
//
// Must never: be installed, or be used for anything but that measurement.
#include <cstddef>

struct Dim3 {
  unsigned x, y, z;
};

extern "C" {
__attribute__((visibility("default"))) void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
__attribute__((visibility("default"))) void __cudaRegisterFatBinaryEnd(void**) {}
__attribute__((visibility("default"))) void __cudaUnregisterFatBinary(void**) {}
__attribute__((visibility("default"))) void __cudaRegisterFunction(void**, const char*, char*,
                                                                   const char*, int, void*, void*,
                                                                   void*, void*, int*) {}
__attribute__((visibility("default"))) unsigned __cudaPushCallConfiguration(Dim3, Dim3, size_t,
                                                                            void*) {
  return 0;
}
__attribute__((visibility("default"))) int __cudaPopCallConfiguration(void*, void*, size_t*,
                                                                      void*) {
  return 0;
}
__attribute__((visibility("default"))) int __cudaGetKernel(void** kernel, const void* func) {
  *kernel = const_cast<void*>(func);
  return 0;
}
__attribute__((visibility("default"))) int __cudaLaunchKernel(void*, Dim3, Dim3, void**, size_t,
                                                              void*) {
  return 0;
}
__attribute__((visibility("default"))) int cudaStreamQuery(void*) { return 0; }
__attribute__((visibility("default"))) int cudaMemcpy(void*, const void*, size_t, int) { return 0; }
__attribute__((visibility("default"))) int cudaStreamSynchronize(void*) { return 0; }
__attribute__((visibility("default"))) int cudaDeviceSynchronize() { return 0; }
}
