// Callback id -> name switches over the generated callback_names.inc. Never allocates.
#include "callback_names.h"

namespace simcuda::cupti {
namespace {

const char* RuntimeName(uint32_t cbid, bool function_name) {
  switch (cbid) {
#define SIMCUDA_RUNTIME_CBID(value, id_name, api_name) \
  case value:                                          \
    return function_name ? api_name : id_name;
#define SIMCUDA_DRIVER_CBID(value, id_name, api_name)
#include "callback_names.inc"
#undef SIMCUDA_RUNTIME_CBID
#undef SIMCUDA_DRIVER_CBID
    default:
      return nullptr;
  }
}

const char* DriverName(uint32_t cbid, bool function_name) {
  switch (cbid) {
#define SIMCUDA_RUNTIME_CBID(value, id_name, api_name)
#define SIMCUDA_DRIVER_CBID(value, id_name, api_name) \
  case value:                                         \
    return function_name ? api_name : id_name;
#include "callback_names.inc"
#undef SIMCUDA_RUNTIME_CBID
#undef SIMCUDA_DRIVER_CBID
    default:
      return nullptr;
  }
}

const char* Lookup(CUpti_CallbackDomain domain, uint32_t cbid, bool function_name) {
  switch (domain) {
    case CUPTI_CB_DOMAIN_RUNTIME_API:
      return RuntimeName(cbid, function_name);
    case CUPTI_CB_DOMAIN_DRIVER_API:
      return DriverName(cbid, function_name);
    default:
      return nullptr;
  }
}

}  // namespace

const char* ApiFunctionName(CUpti_CallbackDomain domain, uint32_t cbid) {
  return Lookup(domain, cbid, /*function_name=*/true);
}

const char* CallbackIdName(CUpti_CallbackDomain domain, uint32_t cbid) {
  return Lookup(domain, cbid, /*function_name=*/false);
}

}  // namespace simcuda::cupti
