// Gzip (RFC 1952) of a byte string with zlib: what pprof's profiles are stored as.
//
// Thread safety: pure function.
// Must never: return a partial stream as if it were whole.
#ifndef BRRR_VIEWER_GZIP_H_
#define BRRR_VIEWER_GZIP_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace brrr {

absl::StatusOr<std::string> Gzip(absl::string_view bytes);

}  // namespace brrr

#endif  // BRRR_VIEWER_GZIP_H_
