// A report as a pprof profile (profile.proto; gzipped by RenderPprof), the format continuous-
// profiling backends ingest (Pyroscope, Parca, Grafana; OpenTelemetry's profiles signal):
//  - host_stall (nanoseconds): each stall row's blocked time on its stack, whose leaf is the
//    blocked call and its reason ("cudaMemcpy [d2h_copy]"); label "reason";
//  - device_time (nanoseconds): what each sampled launch site ran, on the launching stack, with
//    the kernel's name as the leaf; label "device"; estimated (1 in launch_sample_period launches);
//  - launches (count): each sampled launch site's estimated launches on its stack.
// Every sample has a value for each of the three types (0 for the others) and, when the file is one
// process's, labels "pid" and "rank" (when known). A job file's rows merge its processes: no pid.
// Frames are the report's, without the leading CUDA frames (as the folded stacks leave them out):
// "f (file:line)" is function f of file with that line, "f (module)" function f in a mapping of
// that module; Python frames are functions of their .py file.
//
// Thread safety: pure functions.
// Must never: write a sample with a value list shorter than sample_type, a location id that is not
// in the profile, or a string index outside the string table.
#ifndef BRRR_VIEWER_PPROF_PPROF_PROFILE_H_
#define BRRR_VIEWER_PPROF_PPROF_PROFILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "viewer/format/report.h"
#include "viewer/pprof/profile.pb.h"

namespace brrr {

perftools::profiles::Profile BuildPprofProfile(const Report& report);

// The profile's bytes, gzipped (what `go tool pprof` and the backends read).
absl::StatusOr<std::string> RenderPprof(const Report& report);

}  // namespace brrr

#endif  // BRRR_VIEWER_PPROF_PPROF_PROFILE_H_
