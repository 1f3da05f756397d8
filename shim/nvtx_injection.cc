// The NVTX hooks, InitializeInjectionNvtx2 and brrr's label functions, brrr_label_push/pop (see
// nvtx_injection.h). Each range or mark the app
// opens becomes one HostRecord: flags kRecordNvtx, api = NvtxOp, enter == exit == now, target = the
// message's name id, stream = the domain's name id, bytes = the range id of start/end ranges. No
// stack. Names go through the segment's name table (hash + bounded probe; no lock).
//
// The first NVTX call of a thread initializes the shim like a CUDA hook does (a Python script
// pushes its first range before its first CUDA call: that range must not be lost, or its pop
// would close nothing). A call made while the thread is inside a hook, or that cannot be recorded
// (fork child, initialization racing on another thread, more threads than rings), passes through
// unrecorded; the collector tolerates the unbalanced pop that may follow.
//
// Must never (hooks): allocate, lock, block, make a syscall, format text or throw; return anything
// but what NVTX's contract says (nesting level, range id, handle), recorded or not.
#include "shim/nvtx_injection.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "shim/capture_gate.h"
#include "shim/clock.h"
#include "shim/nvtx_message.h"
#include "shim/ring_format.h"
#include "shim/ring_writer.h"
#include "shim/secure_execution.h"
#include "shim/shim_runtime.h"
#include "shim/slot_tables.h"

namespace brrr::shim {
namespace {

// The app's push/pop nesting level on this thread (all domains together), returned by push/pop.
constinit thread_local int t_nvtx_level __attribute__((tls_model("initial-exec"))) = 0;
// Ids of start/end ranges: process-wide, never 0.
std::atomic<uint64_t> g_next_range_id{1};

bool IsReady() {
  return g_runtime.state.load(std::memory_order_acquire) ==
         static_cast<uint32_t>(ShimState::kReady);
}

// Whether this call may be recorded now; the thread's first one initializes the shim.
inline bool MayRecord(ThreadState& ts) { return ts.in_hook == 0 && ThreadMayRecord(ts); }

// Whether the name table can be used (initializing the shim if needed), for registrations made
// by threads that may never record (a domain created at start-up).
bool NamesReady() {
  if (IsReady()) return true;
  ThreadState& ts = t_thread;
  if (ts.in_hook != 0 || ts.status == ThreadStatus::kExited) return false;
  ts.in_hook = 1;
  const bool ready = EnsureInitialized();
  ts.in_hook = 0;
  return ready;
}

// Name id of n bytes; the shim must be ready.
inline uint32_t InternBytes(const char* s, size_t n) {
  const SegmentView& seg = g_runtime.segment;
  return InternName(ring::NameSlotsAt(seg.base, seg.layout), seg.geometry.name_slots, s, n);
}

inline uint32_t InternAscii(const char* s) {
  return s == nullptr ? 0 : InternBytes(s, BoundedLength(s, ring::kMaxNameLength));
}

uint32_t InternWide(const wchar_t* s) {
  if (s == nullptr) return 0;
  char utf8[ring::kMaxNameLength];
  return InternBytes(utf8, WideToUtf8(s, utf8, sizeof(utf8)));
}

uint32_t InternMessage(const nvtxEventAttributes_t* attributes) {
  const NvtxMessage m = MessageOfAttributes(attributes);
  switch (m.kind) {
    case NvtxMessageKind::kAscii:
      return InternAscii(m.ascii);
    case NvtxMessageKind::kWide:
      return InternWide(m.wide);
    case NvtxMessageKind::kRegistered:
      return m.registered_id;
    case NvtxMessageKind::kNone:
      break;
  }
  return 0;
}

inline void Write(ThreadState& ts, uint64_t now, ring::NvtxOp op, uint32_t name,
                  uint32_t domain, uint64_t range_id) {
  ring::HostRecord r{};
  r.enter = now;
  r.exit = now;
  r.target = name;
  r.stream = domain;
  r.bytes = range_id;
  r.flags = ring::kRecordNvtx;
  r.api = static_cast<uint16_t>(op);
  AppendRecord(ts.cursor, r);
}

// ---- push / pop ----

// Capture ranges (capture_gate.h) match the message's name id, known only when recorded.

int NVTX_API RangePushA(const char* message) {
  const int level = t_nvtx_level++;
  ThreadState& ts = t_thread;
  uint32_t name = 0;
  if (MayRecord(ts)) {
    name = InternAscii(message);
    Write(ts, HostNow(), ring::NvtxOp::kPush, name, 0, 0);
  }
  CaptureNvtxPush(level, name);
  return level;
}

int NVTX_API RangePushW(const wchar_t* message) {
  const int level = t_nvtx_level++;
  ThreadState& ts = t_thread;
  uint32_t name = 0;
  if (MayRecord(ts)) {
    const uint64_t now = HostNow();
    name = InternWide(message);
    Write(ts, now, ring::NvtxOp::kPush, name, 0, 0);
  }
  CaptureNvtxPush(level, name);
  return level;
}

int NVTX_API DomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  const int level = t_nvtx_level++;
  ThreadState& ts = t_thread;
  uint32_t name = 0;
  if (MayRecord(ts)) {
    const uint64_t now = HostNow();
    name = InternMessage(attributes);
    Write(ts, now, ring::NvtxOp::kPush, name, NameIdOfHandle(domain), 0);
  }
  CaptureNvtxPush(level, name);
  return level;
}

int NVTX_API RangePushEx(const nvtxEventAttributes_t* attributes) {
  return DomainRangePushEx(nullptr, attributes);
}

int NVTX_API DomainRangePop(nvtxDomainHandle_t domain) {
  // Below zero: a pop without a push (NVTX's contract: a negative value on error).
  const int level = t_nvtx_level > 0 ? --t_nvtx_level : -1;
  CaptureNvtxPop(level);
  ThreadState& ts = t_thread;
  if (MayRecord(ts)) Write(ts, HostNow(), ring::NvtxOp::kPop, 0, NameIdOfHandle(domain), 0);
  return level;
}

int NVTX_API RangePop() { return DomainRangePop(nullptr); }

// ---- start / end ----

nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t domain,
                                          const nvtxEventAttributes_t* attributes) {
  const uint64_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  ThreadState& ts = t_thread;
  uint32_t name = 0;
  if (MayRecord(ts)) {
    const uint64_t now = HostNow();
    name = InternMessage(attributes);
    Write(ts, now, ring::NvtxOp::kStart, name, NameIdOfHandle(domain), id);
  }
  CaptureNvtxStart(id, name);
  return id;
}

nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* attributes) {
  return DomainRangeStartEx(nullptr, attributes);
}

// A start/end range of the default domain named by `message` (interned only when recorded).
template <typename Char, uint32_t (*Intern)(const Char*)>
nvtxRangeId_t StartDefaultDomainRange(const Char* message) {
  const uint64_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  ThreadState& ts = t_thread;
  uint32_t name = 0;
  if (MayRecord(ts)) {
    const uint64_t now = HostNow();
    name = Intern(message);
    Write(ts, now, ring::NvtxOp::kStart, name, 0, id);
  }
  CaptureNvtxStart(id, name);
  return id;
}

nvtxRangeId_t NVTX_API RangeStartA(const char* message) {
  return StartDefaultDomainRange<char, InternAscii>(message);
}

nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* message) {
  return StartDefaultDomainRange<wchar_t, InternWide>(message);
}

void NVTX_API DomainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) {
  CaptureNvtxEnd(id);
  ThreadState& ts = t_thread;
  if (MayRecord(ts)) Write(ts, HostNow(), ring::NvtxOp::kEnd, 0, NameIdOfHandle(domain), id);
}

void NVTX_API RangeEnd(nvtxRangeId_t id) { DomainRangeEnd(nullptr, id); }

// ---- marks ----

void NVTX_API DomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  ThreadState& ts = t_thread;
  if (MayRecord(ts)) {
    const uint64_t now = HostNow();
    Write(ts, now, ring::NvtxOp::kMark, InternMessage(attributes), NameIdOfHandle(domain), 0);
  }
}

void NVTX_API MarkEx(const nvtxEventAttributes_t* attributes) { DomainMarkEx(nullptr, attributes); }

void NVTX_API MarkA(const char* message) {
  ThreadState& ts = t_thread;
  if (MayRecord(ts)) Write(ts, HostNow(), ring::NvtxOp::kMark, InternAscii(message), 0, 0);
}

void NVTX_API MarkW(const wchar_t* message) {
  ThreadState& ts = t_thread;
  if (MayRecord(ts)) {
    const uint64_t now = HostNow();
    Write(ts, now, ring::NvtxOp::kMark, InternWide(message), 0, 0);
  }
}

// ---- domains and registered strings: handles are name ids (nvtx_message.h) ----

nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) {
  const uint32_t id = NamesReady() ? InternAscii(name) : 0;
  return HandleOfNameId<nvtxDomainHandle_t>(id);
}

nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) {
  const uint32_t id = NamesReady() ? InternWide(name) : 0;
  return HandleOfNameId<nvtxDomainHandle_t>(id);
}

nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* text) {
  const uint32_t id = NamesReady() ? InternAscii(text) : 0;
  return HandleOfNameId<nvtxStringHandle_t>(id);
}

nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* text) {
  const uint32_t id = NamesReady() ? InternWide(text) : 0;
  return HandleOfNameId<nvtxStringHandle_t>(id);
}

// ---- what brrr does not use: filled so that every NVTX implementation finds a function ----

void NVTX_API NameCategoryA(uint32_t, const char*) {}
void NVTX_API NameCategoryW(uint32_t, const wchar_t*) {}
void NVTX_API NameOsThreadA(uint32_t, const char*) {}
void NVTX_API NameOsThreadW(uint32_t, const wchar_t*) {}
nvtxResourceHandle_t NVTX_API DomainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*) {
  return nullptr;
}
void NVTX_API DomainResourceDestroy(nvtxResourceHandle_t) {}
void NVTX_API DomainNameCategoryA(nvtxDomainHandle_t, uint32_t, const char*) {}
void NVTX_API DomainNameCategoryW(nvtxDomainHandle_t, uint32_t, const wchar_t*) {}
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}
void NVTX_API Initialize(const void*) {}

// Stores `fn` in slot `id` of a module table of `size` entries (slot 0 and missing slots are
// null in NVTX's tables). The template argument checks fn's type against NVTX's.
template <typename FnType>
void Fill(NvtxFunctionTable table, unsigned int size, unsigned int id, FnType fn) {
  if (id < size && table[id] != nullptr) {
    *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
  }
}

bool FillCore(const NvtxExportTableCallbacks* callbacks) {
  NvtxFunctionTable t = nullptr;
  unsigned int n = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) == 0 || t == nullptr) {
    return false;
  }
  Fill<nvtxMarkEx_impl_fntype>(t, n, NVTX_CBID_CORE_MarkEx, &MarkEx);
  Fill<nvtxMarkA_impl_fntype>(t, n, NVTX_CBID_CORE_MarkA, &MarkA);
  Fill<nvtxMarkW_impl_fntype>(t, n, NVTX_CBID_CORE_MarkW, &MarkW);
  Fill<nvtxRangeStartEx_impl_fntype>(t, n, NVTX_CBID_CORE_RangeStartEx, &RangeStartEx);
  Fill<nvtxRangeStartA_impl_fntype>(t, n, NVTX_CBID_CORE_RangeStartA, &RangeStartA);
  Fill<nvtxRangeStartW_impl_fntype>(t, n, NVTX_CBID_CORE_RangeStartW, &RangeStartW);
  Fill<nvtxRangeEnd_impl_fntype>(t, n, NVTX_CBID_CORE_RangeEnd, &RangeEnd);
  Fill<nvtxRangePushEx_impl_fntype>(t, n, NVTX_CBID_CORE_RangePushEx, &RangePushEx);
  Fill<nvtxRangePushA_impl_fntype>(t, n, NVTX_CBID_CORE_RangePushA, &RangePushA);
  Fill<nvtxRangePushW_impl_fntype>(t, n, NVTX_CBID_CORE_RangePushW, &RangePushW);
  Fill<nvtxRangePop_impl_fntype>(t, n, NVTX_CBID_CORE_RangePop, &RangePop);
  Fill<nvtxNameCategoryA_impl_fntype>(t, n, NVTX_CBID_CORE_NameCategoryA, &NameCategoryA);
  Fill<nvtxNameCategoryW_impl_fntype>(t, n, NVTX_CBID_CORE_NameCategoryW, &NameCategoryW);
  Fill<nvtxNameOsThreadA_impl_fntype>(t, n, NVTX_CBID_CORE_NameOsThreadA, &NameOsThreadA);
  Fill<nvtxNameOsThreadW_impl_fntype>(t, n, NVTX_CBID_CORE_NameOsThreadW, &NameOsThreadW);
  return true;
}

// Domains (NVTX 2+); an implementation without them still gets the core hooks.
void FillCore2(const NvtxExportTableCallbacks* callbacks) {
  NvtxFunctionTable t = nullptr;
  unsigned int n = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) == 0 || t == nullptr) {
    return;
  }
  Fill<nvtxDomainMarkEx_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainMarkEx, &DomainMarkEx);
  Fill<nvtxDomainRangeStartEx_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainRangeStartEx,
                                           &DomainRangeStartEx);
  Fill<nvtxDomainRangeEnd_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainRangeEnd, &DomainRangeEnd);
  Fill<nvtxDomainRangePushEx_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainRangePushEx,
                                          &DomainRangePushEx);
  Fill<nvtxDomainRangePop_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainRangePop, &DomainRangePop);
  Fill<nvtxDomainResourceCreate_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainResourceCreate,
                                             &DomainResourceCreate);
  Fill<nvtxDomainResourceDestroy_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainResourceDestroy,
                                              &DomainResourceDestroy);
  Fill<nvtxDomainNameCategoryA_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainNameCategoryA,
                                            &DomainNameCategoryA);
  Fill<nvtxDomainNameCategoryW_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainNameCategoryW,
                                            &DomainNameCategoryW);
  Fill<nvtxDomainRegisterStringA_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainRegisterStringA,
                                              &DomainRegisterStringA);
  Fill<nvtxDomainRegisterStringW_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainRegisterStringW,
                                              &DomainRegisterStringW);
  Fill<nvtxDomainCreateA_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainCreateA, &DomainCreateA);
  Fill<nvtxDomainCreateW_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainCreateW, &DomainCreateW);
  Fill<nvtxDomainDestroy_impl_fntype>(t, n, NVTX_CBID_CORE2_DomainDestroy, &DomainDestroy);
  Fill<nvtxInitialize_impl_fntype>(t, n, NVTX_CBID_CORE2_Initialize, &Initialize);
}

}  // namespace

void SetNvtxInjectionPath() {
  if (SecureExecution()) return;  // the app's environment stays as it is
  if (getenv("NVTX_INJECTION64_PATH") != nullptr) return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&InitializeInjectionNvtx2), &info) == 0 ||
      info.dli_fname == nullptr || info.dli_fname[0] == '\0') {
    return;
  }
  // A relative preload path would stop naming this library once the app changes directory.
  char absolute[PATH_MAX];
  const char* path = info.dli_fname;
  if (path[0] != '/' && realpath(path, absolute) != nullptr) path = absolute;
  setenv("NVTX_INJECTION64_PATH", path, 0);
}

namespace {
// Before main and before any NVTX call the app makes (NVTX reads the variable on its first call).
__attribute__((constructor)) void NvtxConstructor() { SetNvtxInjectionPath(); }
}  // namespace

}  // namespace brrr::shim

extern "C" int InitializeInjectionNvtx2(const void* (*get_export_table)(uint32_t)) {
  namespace s = ::brrr::shim;
  if (get_export_table == nullptr) return 0;
  // A process that is never profiled (a fork child) lets NVTX turn every call into a no-op.
  if (s::g_runtime.state.load(std::memory_order_acquire) ==
      static_cast<uint32_t>(s::ShimState::kDisabled)) {
    return 0;
  }
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  if (!s::FillCore(callbacks)) return 0;
  s::FillCore2(callbacks);
  const auto* version =
      static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
  if (version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion != nullptr) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  return 1;
}

extern "C" int brrr_label_push(const char* utf8) { return ::brrr::shim::RangePushA(utf8); }

extern "C" int brrr_label_pop(void) { return ::brrr::shim::RangePop(); }

extern "C" int brrr_torch_annotations(const char* version, int active, const char* reason) {
  namespace s = ::brrr::shim;
  namespace ring = ::brrr::ring;
  if (!s::NamesReady()) return 0;  // initializes the shim, as a first label would
  ring::SegmentHeader* h = s::g_runtime.segment.header;
  if (h == nullptr) return 0;
  uint32_t none = static_cast<uint32_t>(ring::TorchAnnotations::kNone);
  if (!h->torch_annotations.compare_exchange_strong(
          none, static_cast<uint32_t>(ring::TorchAnnotations::kWriting),
          std::memory_order_acq_rel)) {
    return 0;  // said once already
  }
  auto copy = [](char* to, size_t size, const char* from) {
    const size_t n = from == nullptr ? 0 : strnlen(from, size - 1);
    if (n > 0) memcpy(to, from, n);
    to[n] = '\0';
  };
  copy(h->torch_version, sizeof(h->torch_version), version);
  copy(h->torch_reason, sizeof(h->torch_reason), active != 0 ? nullptr : reason);
  h->torch_annotations.store(
      static_cast<uint32_t>(active != 0 ? ring::TorchAnnotations::kActive
                                        : ring::TorchAnnotations::kUnsupported),
      std::memory_order_release);
  return 1;
}
