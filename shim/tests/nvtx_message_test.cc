// Unit tests of NVTX message decoding (nvtx_message.h): wide strings to bounded UTF-8, event
// attributes read only as far as their size says, handles that carry name ids.
#include "shim/nvtx_message.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace brrr::shim {
namespace {

std::string Utf8(const wchar_t* s, size_t cap) {
  char buf[64];
  EXPECT_LE(cap, sizeof(buf));
  memset(buf, 'X', sizeof(buf));
  const size_t n = WideToUtf8(s, buf, cap);
  EXPECT_LE(n, cap);
  // Nothing written past what was returned.
  for (size_t i = n; i < sizeof(buf); ++i) EXPECT_EQ(buf[i], 'X') << i;
  return std::string(buf, n);
}

TEST(NvtxMessageTest, WideToUtf8EncodesEveryLength) {
  EXPECT_EQ(Utf8(L"step", 64), "step");
  EXPECT_EQ(Utf8(L"caf\u00e9", 64), "caf\xc3\xa9");                 // 2 bytes
  EXPECT_EQ(Utf8(L"\u4e2d", 64), "\xe4\xb8\xad");                     // 3 bytes
  EXPECT_EQ(Utf8(L"\U0001F600", 64), "\xf0\x9f\x98\x80");             // 4 bytes
  EXPECT_EQ(Utf8(L"", 64), "");
}

TEST(NvtxMessageTest, WideToUtf8ReplacesValuesThatAreNotCharacters) {
  const wchar_t surrogate[] = {L'a', static_cast<wchar_t>(0xD800), L'b', 0};
  EXPECT_EQ(Utf8(surrogate, 64), "a\xef\xbf\xbd" "b");
  const wchar_t too_big[] = {static_cast<wchar_t>(0x110000), 0};
  EXPECT_EQ(Utf8(too_big, 64), "\xef\xbf\xbd");
  const wchar_t negative[] = {static_cast<wchar_t>(-5), 0};
  EXPECT_EQ(Utf8(negative, 64), "\xef\xbf\xbd");
}

TEST(NvtxMessageTest, WideToUtf8NeverSplitsACharacterAtTheBound) {
  // "a" + U+4E2D (3 bytes): with 3 bytes of room only "a" fits whole.
  EXPECT_EQ(Utf8(L"a\u4e2d", 3), "a");
  EXPECT_EQ(Utf8(L"a\u4e2d", 4), "a\xe4\xb8\xad");
  EXPECT_EQ(Utf8(L"abcdef", 4), "abcd");
  EXPECT_EQ(Utf8(L"abc", 0), "");
}

TEST(NvtxMessageTest, WideToUtf8ReadsNoMoreThanCapCharacters) {
  // No terminator within reach: only `cap` wide characters may be read.
  const wchar_t unterminated[4] = {L'w', L'x', L'y', L'z'};
  EXPECT_EQ(Utf8(unterminated, 4), "wxyz");
}

TEST(NvtxMessageTest, BoundedLengthStopsAtTheCap) {
  EXPECT_EQ(BoundedLength("fwd", 10), 3u);
  EXPECT_EQ(BoundedLength("forward", 4), 4u);
  const char unterminated[2] = {'a', 'b'};
  EXPECT_EQ(BoundedLength(unterminated, 2), 2u);
}

TEST(NvtxMessageTest, HandlesCarryNameIdsAndAreNeverNull) {
  EXPECT_EQ(NameIdOfHandle(nullptr), 0u);
  for (uint32_t id : {0u, 1u, 77u, 0xFFFFFFFFu}) {
    const auto h = HandleOfNameId<nvtxDomainHandle_t>(id);
    EXPECT_NE(h, nullptr);
    EXPECT_EQ(NameIdOfHandle(h), id);
  }
  // A value no handle of ours has (beyond 32-bit ids): no name.
  EXPECT_EQ(NameIdOfHandle(reinterpret_cast<void*>(uintptr_t{1} << 40)), 0u);
}

nvtxEventAttributes_t Attributes() {
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof(a));
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

TEST(NvtxMessageTest, AttributesOfEachMessageType) {
  nvtxEventAttributes_t a = Attributes();
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "fwd";
  NvtxMessage m = MessageOfAttributes(&a);
  EXPECT_EQ(m.kind, NvtxMessageKind::kAscii);
  EXPECT_STREQ(m.ascii, "fwd");

  a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  a.message.unicode = L"bwd";
  m = MessageOfAttributes(&a);
  EXPECT_EQ(m.kind, NvtxMessageKind::kWide);
  EXPECT_EQ(m.wide, a.message.unicode);

  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = HandleOfNameId<nvtxStringHandle_t>(42);
  m = MessageOfAttributes(&a);
  EXPECT_EQ(m.kind, NvtxMessageKind::kRegistered);
  EXPECT_EQ(m.registered_id, 42u);
}

TEST(NvtxMessageTest, AttributesWithoutAUsableMessage) {
  EXPECT_EQ(MessageOfAttributes(nullptr).kind, NvtxMessageKind::kNone);
  nvtxEventAttributes_t a = Attributes();
  a.messageType = NVTX_MESSAGE_UNKNOWN;
  a.message.ascii = "ignored";
  EXPECT_EQ(MessageOfAttributes(&a).kind, NvtxMessageKind::kNone);
  a.messageType = 99;
  EXPECT_EQ(MessageOfAttributes(&a).kind, NvtxMessageKind::kNone);
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = nullptr;
  EXPECT_EQ(MessageOfAttributes(&a).kind, NvtxMessageKind::kNone);
  // A struct whose size ends before `message`: the message field is not the caller's.
  a.message.ascii = "beyond";
  a.size = static_cast<uint16_t>(offsetof(nvtxEventAttributes_t, message));
  EXPECT_EQ(MessageOfAttributes(&a).kind, NvtxMessageKind::kNone);
  a.size = 0;
  EXPECT_EQ(MessageOfAttributes(&a).kind, NvtxMessageKind::kNone);
}

}  // namespace
}  // namespace brrr::shim
