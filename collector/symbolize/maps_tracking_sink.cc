// Re-reads the app's maps when a stack leaves the known modules. See maps_tracking_sink.h.
//
// Must never: fail the stream of events when the maps cannot be read (the app may be gone).
#include "collector/symbolize/maps_tracking_sink.h"

namespace brrr::symbolize {

void MapsTrackingSink::OnStack(const Stack& stack) {
  for (const uint64_t pc : stack.pcs) {
    if (pc == 0 || maps_->Find(pc - 1) != nullptr) continue;
    (void)maps_->Capture(pid_);  // a vanished process just leaves the PC unknown
    break;
  }
  inner_->OnStack(stack);
}

}  // namespace brrr::symbolize
