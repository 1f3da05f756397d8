#!/usr/bin/env bash
# Host time libbrrr.so adds per intercepted CUDA call, on the simulated device: runs
# shim/shim_benchmark without the shim, then preloaded (stacks off, stacks on, stacks on + CUPTI),
# outside a capture range (BRRR_CAPTURE_RANGE=cudaProfilerApi, never started), paused
# (BRRR_START=paused) and without the periodic flush (BRRR_FLUSH_MS=0), and prints each
# benchmark's median and the difference to the run without the shim.
# Usage: [RUNTIME=sim|null] [TAILS_ONLY=1] tools/bench/shim_bench.sh [build-dir]
#        (default build/default)
#   RUNTIME=sim  (default) the simulated runtime, BRRR_SIM_LAUNCH_NS=0: microseconds of simulator
#                work per launch, so the shim's tens of ns drown in noise on a busy machine.
#   RUNTIME=null a do-nothing libcudart (shim/bench_null_cudart.cc): the shim's own cost.
# Medians are of CPU time (robust on a loaded machine), not wall time.
# Targets (issue 3): <= 50 ns added per launch without stacks, <= 300 ns with stacks.
set -euo pipefail
build="${1:-build/default}"
bin="$build/shim/shim_benchmark"
shim="$build/lib/libbrrr.so"
sim="$build/simcuda/lib"
[[ "${RUNTIME:-sim}" == null ]] && sim="$build/shim/null_cudart"
for f in "$bin" "$shim" "$sim/libcudart.so.13"; do
  [[ -e "$f" ]] || { echo "shim_bench: missing $f (build shim_benchmark brrr_shim simcuda_runtime simcuda_cupti)" >&2; exit 1; }
done
common=(env LD_LIBRARY_PATH="$sim" BRRR_SIM_LAUNCH_NS=0 BRRR_SIM_KERNEL_NS=0
        BRRR_BENCH_SEGMENT=create BRRR_QUIET=1 BRRR_REPORT_WAIT_MS=0)
args=(--benchmark_repetitions="${REPETITIONS:-9}" --benchmark_min_time="${MIN_TIME:-0.2}"
      --benchmark_report_aggregates_only=true)

medians() {  # prints "name median_ns" per benchmark
  "$@" "${args[@]}" 2>/dev/null | awk '$1 ~ /_median$/ { sub(/_median$/, "", $1); print $1, $4 }'
}

# TAILS_ONLY=1: only the per-call percentiles below.
if [[ -z "${TAILS_ONLY:-}" ]]; then
declare -A base
while read -r name ns; do base[$name]=$ns; done < <(medians "${common[@]}" "$bin")

report() {
  local label="$1"; shift
  while read -r name ns; do
    printf '%-34s %-22s median %8.1f ns   added %+7.1f ns\n' "$label" "$name" "$ns" \
      "$(echo "$ns - ${base[$name]}" | bc -l)"
  done < <(medians "$@")
}

for name in "${!base[@]}"; do printf '%-34s %-22s median %8.1f ns\n' "no shim" "$name" "${base[$name]}"; done
report "shim, stacks off, CUPTI off" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=0 BRRR_CUPTI=0 "$bin"
report "shim, stacks on,  CUPTI off" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 BRRR_CUPTI=0 "$bin"
report "shim, stacks on,  CUPTI on" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 "$bin"
# Outside a capture range (never opened): each hook does one relaxed load of the gate and forwards.
report "shim, outside a capture range" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CAPTURE_RANGE=cudaProfilerApi "$bin"
# Paused (BRRR_START=paused, `brrr ctl PID pause`): the same single gate load as outside a range,
# and CUPTI activity off. Target: within 2 ns of no shim.
report "shim, paused (BRRR_START=paused)" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_START=paused "$bin"
# Launch stacks on every launch instead of 1 in 64 (BRRR_LAUNCH_SAMPLE=1): the DWARF unwind of
# a sampled launch, paid by each launch.
report "shim, stacks on, every launch sampled" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 BRRR_LAUNCH_SAMPLE=1 "$bin"
report "shim, every launch sampled, FP only" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 BRRR_LAUNCH_SAMPLE=1 BRRR_DWARF_STACKS=0 "$bin"
report "shim, stacks on, FP only" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 BRRR_DWARF_STACKS=0 "$bin"
# Every copy a stall (BRRR_PY_STALL_US=0): BM_StallAtDepth30's whole 30-frame stack through
# libunwind (issue 19), and the frame-pointer walk alone for comparison.
report "shim, every copy a stall, DWARF" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 BRRR_PY_STALL_US=0 "$bin"
report "shim, every copy a stall, FP only" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 BRRR_PY_STALL_US=0 BRRR_DWARF_STACKS=0 "$bin"
# The periodic CUPTI flush off: the difference to "stacks on, CUPTI on" is its cost per call.
report "shim, CUPTI on, no periodic flush" "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_FLUSH_MS=0 "$bin"
fi

# A stall's stack at the median and the tail: each call of BM_StallAtDepth30Percentiles timed on
# its own (BRRR_PY_STALL_US=0: every copy is a stall), p50/p99 of the call, the medians of the
# repetitions' percentiles. Issue 19's budget: a stall's whole stack costs at most ~2 us.
tails() {  # prints "p50 p99" of BENCH (a Percentiles benchmark); the command follows
  local bench="$1"; shift
  "$@" "${args[@]}" --benchmark_filter="$bench" 2>/dev/null |
    awk '$1 ~ /_median$/ { for (i = 1; i <= NF; i++) { if ($i ~ /^p50_ns=/) p50 = $i; if ($i ~ /^p99_ns=/) p99 = $i } }
         END { sub(/p50_ns=/, "", p50); sub(/p99_ns=/, "", p99); print p50, p99 }'
}
read -r p50 p99 < <(tails StallAtDepth30Percentiles "${common[@]}" "$bin")
printf '%-34s %-22s p50 %8s   p99 %8s\n' "no shim" "stall, 30 frames" "$p50" "$p99"
read -r p50 p99 < <(tails StallAtDepth30Percentiles "${common[@]}" LD_PRELOAD="$shim" \
  BRRR_STACKS=1 BRRR_CUPTI=0 BRRR_PY_STALL_US=0 "$bin")
printf '%-34s %-22s p50 %8s   p99 %8s\n' "shim, stall stacks, DWARF" "stall, 30 frames" "$p50" "$p99"
read -r p50 p99 < <(tails StallAtDepth30Percentiles "${common[@]}" LD_PRELOAD="$shim" \
  BRRR_STACKS=1 BRRR_CUPTI=0 BRRR_PY_STALL_US=0 BRRR_DWARF_STACKS=0 "$bin")
printf '%-34s %-22s p50 %8s   p99 %8s\n' "shim, stall stacks, FP only" "stall, 30 frames" "$p50" "$p99"
# The median launch at the default sampling (1 in 64 launches unwinds its whole stack): issue 19's
# target is the frame-pointer-only median within 2 ns.
read -r p50 p99 < <(tails LaunchPercentiles "${common[@]}" "$bin")
printf '%-34s %-22s p50 %8s   p99 %8s\n' "no shim" "launch" "$p50" "$p99"
read -r p50 p99 < <(tails LaunchPercentiles "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 "$bin")
printf '%-34s %-22s p50 %8s   p99 %8s\n' "shim, 1 in 64 sampled, DWARF" "launch" "$p50" "$p99"
read -r p50 p99 < <(tails LaunchPercentiles "${common[@]}" LD_PRELOAD="$shim" BRRR_STACKS=1 \
  BRRR_CUPTI=0 BRRR_DWARF_STACKS=0 "$bin")
printf '%-34s %-22s p50 %8s   p99 %8s\n' "shim, 1 in 64 sampled, FP only" "launch" "$p50" "$p99"
