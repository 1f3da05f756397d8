// An NVTX user for the shim's NVTX tests: a host-only program (no device code, so the shim starts
// at its first hooked call, as in a Python process) that opens a range before its first CUDA call
// and then uses every kind of NVTX event brrr records: ASCII, wide and registered messages, event
// attributes, a domain, push/pop, marks, start/end ranges ended on another thread, and a range
// pushed through a second NVTX instance (a library's own copy). Prints the nesting levels NVTX
// returned and the range ids it handed out.
//
// Must never: link the shim (it stands for an unmodified program), or depend on being profiled.
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>
#include <thread>

// nvtx_second_instance.cc: push + pop through that library's NVTX; returns the push's level.
extern "C" int nvtx_second_instance_range(const char* name);

namespace {

nvtxEventAttributes_t AsciiAttributes(const char* message) {
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof(a));
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

}  // namespace

int main() {
  const int outer = nvtxRangePushA("outer");  // before any CUDA call
  void* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 2;

  const int wide = nvtxRangePushW(L"wide-\u00e9\u4e2d");
  cudaMemset(d, 0, 1024);
  const int wide_pop = nvtxRangePop();

  nvtxDomainHandle_t domain = nvtxDomainCreateA("brrr.test");
  nvtxStringHandle_t registered = nvtxDomainRegisterStringA(domain, "registered");
  nvtxEventAttributes_t reg;
  memset(&reg, 0, sizeof(reg));
  reg.version = NVTX_VERSION;
  reg.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  reg.message.registered = registered;
  const int in_domain = nvtxDomainRangePushEx(domain, &reg);
  cudaDeviceSynchronize();
  const int domain_pop = nvtxDomainRangePop(domain);

  nvtxMarkA("mark");
  const nvtxEventAttributes_t async = AsciiAttributes("async");
  const nvtxRangeId_t async_id = nvtxDomainRangeStartEx(domain, &async);
  std::thread([&] { nvtxDomainRangeEnd(domain, async_id); }).join();
  const nvtxRangeId_t plain_id = nvtxRangeStartA("plain-start");
  nvtxRangeEnd(plain_id);

  const int second = nvtx_second_instance_range("second-instance");
  const int outer_pop = nvtxRangePop();
  const int extra_pop = nvtxRangePop();  // one pop too many
  cudaFree(d);
  std::printf("levels %d %d %d %d %d %d %d %d\n", outer, wide, wide_pop, in_domain, domain_pop,
              second, outer_pop, extra_pop);
  std::printf("ranges %llu %llu\n", static_cast<unsigned long long>(async_id),
              static_cast<unsigned long long>(plain_id));
  return 0;
}
