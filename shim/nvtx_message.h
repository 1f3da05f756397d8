// What an NVTX call names, reduced to bytes the name table can hold: the message of an event
// (ASCII, wide characters, or a registered-string handle, directly or through
// nvtxEventAttributes_t) and the handles brrr hands out for domains and registered strings, which
// are NameSlot ids in disguise (id + 1, so that a handle is never null; a null handle is the
// default domain / no string).
//
// Everything here reads memory the app passed in: lengths are bounded by the caller's buffer, an
// attribute struct is read only as far as its own `size` says it reaches.
// Must never: allocate, lock, make a syscall, read past a bound, or write past `cap`.
#ifndef BRRR_SHIM_NVTX_MESSAGE_H_
#define BRRR_SHIM_NVTX_MESSAGE_H_

#ifndef NVTX_NO_IMPL
#define NVTX_NO_IMPL  // types and declarations only: the shim is a tool, not an NVTX client
#endif
#include <nvtx3/nvToolsExt.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cwchar>

namespace brrr::shim {

// The name id a domain or string handle stands for (0 for a null handle).
inline uint32_t NameIdOfHandle(const void* handle) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(handle);
  return v == 0 || v - 1 > UINT32_MAX ? 0 : static_cast<uint32_t>(v - 1);
}
template <typename Handle>
inline Handle HandleOfNameId(uint32_t id) {
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(id) + 1);
}

// Length of the NUL-terminated `s`, looking at most `cap` bytes (a longer string counts as `cap`).
inline size_t BoundedLength(const char* s, size_t cap) { return strnlen(s, cap); }

// UTF-8 of the NUL-terminated wide string `s` (UTF-32 code points on Linux) into out[0..cap):
// stops at the terminator or before a character that would not fit whole; a value that is not a
// Unicode scalar value (a surrogate, above U+10FFFF, negative) becomes U+FFFD. Reads at most
// `cap` wide characters. Returns the bytes written.
size_t WideToUtf8(const wchar_t* s, char* out, size_t cap);

// Which kind of message an event carries, and where.
enum class NvtxMessageKind : uint8_t { kNone = 0, kAscii = 1, kWide = 2, kRegistered = 3 };
struct NvtxMessage {
  NvtxMessageKind kind = NvtxMessageKind::kNone;
  const char* ascii = nullptr;
  const wchar_t* wide = nullptr;
  uint32_t registered_id = 0;  // kRegistered: the name id of the handle
};

// The message of `attributes` (null, too small to reach `message`, an unknown type or a null
// pointer: kNone).
NvtxMessage MessageOfAttributes(const nvtxEventAttributes_t* attributes);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_NVTX_MESSAGE_H_
