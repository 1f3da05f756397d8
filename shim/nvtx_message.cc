// Decoding NVTX messages (see nvtx_message.h): wide strings to bounded UTF-8, event attributes
// read no further than their declared size.
//
// Must never: allocate, lock, make a syscall, or touch memory past the bounds it is given.
#include "shim/nvtx_message.h"

#include <cstddef>

namespace brrr::shim {

size_t WideToUtf8(const wchar_t* s, char* out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < cap && s[i] != L'\0'; ++i) {
    uint32_t c = static_cast<uint32_t>(s[i]);
    if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
    const size_t need = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (cap - n < need) break;
    switch (need) {
      case 1:
        out[n] = static_cast<char>(c);
        break;
      case 2:
        out[n] = static_cast<char>(0xC0 | (c >> 6));
        out[n + 1] = static_cast<char>(0x80 | (c & 0x3F));
        break;
      case 3:
        out[n] = static_cast<char>(0xE0 | (c >> 12));
        out[n + 1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out[n + 2] = static_cast<char>(0x80 | (c & 0x3F));
        break;
      default:
        out[n] = static_cast<char>(0xF0 | (c >> 18));
        out[n + 1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out[n + 2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out[n + 3] = static_cast<char>(0x80 | (c & 0x3F));
        break;
    }
    n += need;
  }
  return n;
}

NvtxMessage MessageOfAttributes(const nvtxEventAttributes_t* attributes) {
  NvtxMessage m;
  if (attributes == nullptr) return m;
  // Fields past `size` were never written by the caller (an older, smaller struct).
  constexpr size_t kReach = offsetof(nvtxEventAttributes_t, message) + sizeof(attributes->message);
  if (attributes->size < kReach) return m;
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      if (attributes->message.ascii == nullptr) return m;
      m.kind = NvtxMessageKind::kAscii;
      m.ascii = attributes->message.ascii;
      return m;
    case NVTX_MESSAGE_TYPE_UNICODE:
      if (attributes->message.unicode == nullptr) return m;
      m.kind = NvtxMessageKind::kWide;
      m.wide = attributes->message.unicode;
      return m;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      m.kind = NvtxMessageKind::kRegistered;
      m.registered_id = NameIdOfHandle(attributes->message.registered);
      return m;
    default:
      return m;
  }
}

}  // namespace brrr::shim
