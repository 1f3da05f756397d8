// A shared library with its own copy of header-only NVTX 3 (as libtorch, cuDNN or any library
// built with nvtx3 has): its NVTX globals are separate from the program's, so NVTX initializes
// and injects it separately. Used by nvtx_app.
//
// Must never: link the shim.
#include <nvtx3/nvToolsExt.h>

extern "C" __attribute__((visibility("default"))) int nvtx_second_instance_range(const char* name) {
  const int level = nvtxRangePushA(name);
  nvtxRangePop();
  return level;
}
