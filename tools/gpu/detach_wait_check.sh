#!/usr/bin/env bash
# The wait before detaching CUPTI after a window (shim/detach_grace.h) on the real driver, both
# ways it can go wrong, each with BRRR_DETACH_WAIT=adaptive (the default) and =window (one window
# length, as before it adapted), ROUNDS rounds (default 2), 10 % windows of WINDOW_MS (default 50),
# CUPTI detached:
#  - device-bound: workloads/cupti_cost.cu `none` whose kernels each spin SPIN_NS (default 20,000)
#    on the device, LAUNCHES (default 200,000: 4 s of device time), far faster than the device
#    runs them. The adaptive wait must find work still queued at its flushes (records handed back
#    without timestamps: the report's coverage.untimed_device_ops above 0) and grow, not shrink
#    while windows' kernels go missing. Printed: windows, detaches, untimed records, launches with
#    a kernel record against launch calls, and the device time brrr estimates against the truth
#    (LAUNCHES x SPIN_NS: the kernels run back to back).
#  - launch-bound: the same loop with empty kernels (FAST_LAUNCHES, default 1,000,000): ns per
#    launch and brrr's cost estimate; the adaptive wait should cost less than the window's.
# Each round runs both loops alone first (ns per launch: what brrr's estimates are held against).
# One line per run; compare rounds, not runs (machines spread by ±10 %).
#
#   [BRRR=build/gpu-bundle/lib/brrr] [ARCH=sm_90] [ROUNDS=2] [PIN="taskset -c 2-9"] [WINDOW_MS=50]
#   [LAUNCHES=200000] [SPIN_NS=20000] [FAST_LAUNCHES=1000000]
#   detach_wait_check.sh OUT_DIR
#
# Must never: be read as a pass or fail of one run (it prints figures; tools/gpu/README.md says
# what to look for).
set -uo pipefail
out="${1:?usage: detach_wait_check.sh OUT_DIR}"
B="${BRRR:-build/gpu-bundle/lib/brrr}"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
bash "$gpu_dir/build_cupti_cost.sh" "$out/cupti_cost" "${ARCH:-sm_90}" shared >"$out/build.txt" ||
  { cat "$out/build.txt"; exit 1; }
launches="${LAUNCHES:-200000}" spin="${SPIN_NS:-20000}" fast="${FAST_LAUNCHES:-1000000}"
summary() {  # REPORT.brrr LAUNCHES TRUTH_NS: one line of the report's figures
  "$B" report "$1" --json | python3 -c '
import json, sys
r = json.load(sys.stdin); d = r.get("device_sampling") or {}; k = r.get("kernels", {})
truth = float(sys.argv[2])
dev = "%.2f of truth" % ((k.get("device_ns") or 0) / truth) if truth > 0 else "-"
o = r.get("overhead") or {}
print("windows %s detaches %s untimed %s kernels-with-records %s launch-calls %s device-time %s cost %.2f%% hidden %.1f ms" % (
    d.get("windows"), d.get("cupti_detaches"), (r.get("coverage") or {}).get("untimed_device_ops"),
    d.get("traced_launches"), k.get("launch_calls"), dev, o.get("pct_of_wall") or 0,
    (o.get("hidden_by_device_ns") or 0) / 1e6))' \
    "$2" "$3"
}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  # Each loop alone first: what brrr's cost estimates are to be held against.
  for kind in device-bound launch-bound; do
    if [[ "$kind" == device-bound ]]; then n="$launches" spin_env=("CUPTI_COST_SPIN_NS=$spin"); else
      n="$fast" spin_env=(); fi
    line="$(${PIN-taskset -c 2-9} env "${spin_env[@]}" "$out/cupti_cost" none --launches "$n" \
      2>"$out/err" | grep -m1 '^none')" || { echo "$kind alone r$r failed:"; tail -n 3 "$out/err"; continue; }
    printf '%-12s %-8s r%d %7.0f ns/launch\n' "$kind" alone "$r" "$(cut -f2 <<<"$line")" |
      tee -a "$out/detach-wait.txt"
  done
  for wait in adaptive window; do
    for kind in device-bound launch-bound; do
      if [[ "$kind" == device-bound ]]; then
        n="$launches" spin_env=("CUPTI_COST_SPIN_NS=$spin") truth=$((launches * spin))
      else
        n="$fast" spin_env=() truth=0
      fi
      rm -f "$out/x.brrr"*
      line="$(${PIN-taskset -c 2-9} env "${spin_env[@]}" BRRR_SAMPLE_DEVICE=10% BRRR_CUPTI_DETACH=1 \
        BRRR_SAMPLE_WINDOW_MS="${WINDOW_MS:-50}" \
        BRRR_DETACH_WAIT="$wait" "$B" run --quiet --output "$out/x.brrr" -- \
        "$out/cupti_cost" none --launches "$n" 2>"$out/err" | grep -m1 '^none')" ||
        { echo "$kind $wait r$r failed:"; tail -n 3 "$out/err"; continue; }
      printf '%-12s %-8s r%d %7.0f ns/launch  %s\n' "$kind" "$wait" "$r" "$(cut -f2 <<<"$line")" \
        "$(summary "$out/x.brrr" "$n" "$truth")" | tee -a "$out/detach-wait.txt"
    done
  done
done
