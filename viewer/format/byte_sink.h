// Where a writer of a large output (a trace export) puts its bytes as it makes them, so that the
// whole output never has to be held in memory: a string (tests, small outputs) or a file being
// written atomically (atomic_file.h).
//
// Thread safety: a ByteSink is not shared between threads.
// Must never: throw; a sink that fails (a full disk) keeps its first error and ignores what comes
// after, for whoever finishes the output to report.
#ifndef BRRR_VIEWER_FORMAT_BYTE_SINK_H_
#define BRRR_VIEWER_FORMAT_BYTE_SINK_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace brrr {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void Append(absl::string_view bytes) = 0;
};

class StringByteSink final : public ByteSink {
 public:
  explicit StringByteSink(std::string* out) : out_(out) {}
  void Append(absl::string_view bytes) override { out_->append(bytes.data(), bytes.size()); }

 private:
  std::string* out_;
};

// Hands a writer's text to a sink a piece at a time: the writer appends to `text` and calls
// AtRecordEnd() between records (the text goes to the sink once it holds kPieceBytes), then
// Finish() once at the end.
class PieceBuffer {
 public:
  static constexpr size_t kPieceBytes = size_t{1} << 20;
  PieceBuffer(std::string& text, ByteSink& sink) : text_(text), sink_(sink) {}
  void AtRecordEnd() {
    if (text_.size() >= kPieceBytes) Finish();
  }
  void Finish() {
    sink_.Append(text_);
    text_.clear();
  }

 private:
  std::string& text_;
  ByteSink& sink_;
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_BYTE_SINK_H_
