// Gzip with zlib's deflate. See gzip.h.
#include "viewer/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace brrr {

absl::StatusOr<std::string> Gzip(absl::string_view bytes) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's (zlib.h, deflateInit2).
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::InternalError("zlib: deflateInit2 failed");
  }
  std::string out;
  out.resize(deflateBound(&z, static_cast<uLong>(std::min<size_t>(bytes.size(), ULONG_MAX))) + 64);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  size_t fed = 0;
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    if (z.avail_in == 0 && fed < bytes.size()) {  // at most UINT_MAX bytes per call
      const size_t chunk = std::min<size_t>(bytes.size() - fed, UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
      z.avail_in = static_cast<uInt>(chunk);
      fed += chunk;
    }
    if (z.total_out == out.size()) out.resize(out.size() * 2);
    const size_t room = std::min<size_t>(out.size() - z.total_out, UINT_MAX);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
    z.avail_out = static_cast<uInt>(room);
    status = deflate(&z, fed == bytes.size() ? Z_FINISH : Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
      deflateEnd(&z);
      return absl::InternalError(absl::StrCat("zlib: deflate failed (", status, ")"));
    }
  }
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace brrr
