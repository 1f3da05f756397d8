// Tells whether an ELF file carries CUDA device code (a ".nv_fatbin" section: nvcc puts one in
// every object with kernels, whether cudart is linked statically or dynamically). The shim asks
// this of its own executable at start-up: a program with device code gets CUPTI and its segment
// right away, because a static-cudart program never calls a hooked function that would start them
// lazily.
//
// Must never: allocate, trust the file's offsets or counts (everything is bounds-checked against
// the file size), read more than a bounded number of sections, or fail loudly (false on any doubt).
#ifndef BRRR_SHIM_DEVICE_CODE_PROBE_H_
#define BRRR_SHIM_DEVICE_CODE_PROBE_H_

namespace brrr::shim {

// True when `path` is a 64-bit little-endian ELF file with a section named ".nv_fatbin".
bool FileCarriesDeviceCode(const char* path);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_DEVICE_CODE_PROBE_H_
