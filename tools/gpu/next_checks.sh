#!/usr/bin/env bash
# The checks tools/gpu/README.md lists under "To check on the next GPU", as one device command of
# about 4 minutes (each step under its own time limit, so one that hangs costs only its share):
#   1. attach_probe concurrent: do the app's launches wait while another thread attaches CUPTI?
#      attach_probe 30: what each step leaves to the app's next launch, brrr's detach included (the
#      kinds off, a forced flush, cuptiFinalize: is the flush's 0.8-0.9 ms still paid after it?);
#   2. detach_wait_check.sh, one round: the device-bound loop's estimate and what the device's
#      queue hid of each window's first launch call (`hidden`), the launch-bound loop's;
#   3. chunk_diag.sh alone / budget-3 / sample-10-detach, two rounds: estimates against the chunks;
#   4. acceptance.sh --only nvcc: the counts still exact.
# Every step's output goes to OUT_DIR/<step>.txt and its last lines to stdout.
#
#   [BRRR=build/gpu-bundle/lib/brrr] [ARCH=sm_90] next_checks.sh [OUT_DIR (default $OUT)]
#
# Run from the repository root on the GPU machine with the bundle carried (README: "Running it").
# Must never: stop at a failed step (the others still run; the exit status says how many failed).
set -uo pipefail
out="${1:-${OUT:?usage: next_checks.sh OUT_DIR (or set OUT)}}/next-checks"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export BRRR="${BRRR:-build/gpu-bundle/lib/brrr}"
arch="${ARCH:-sm_90}"
mkdir -p "$out" || exit 1
failed=0
# step NAME LIMIT_S COMMAND...: runs it, its output in $out/NAME.txt, says how it ended.
step() {
  local name="$1" limit="$2"
  shift 2
  local t0=$SECONDS
  echo "=== $name (limit ${limit} s)"
  timeout "$limit" "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  tail -n 14 "$out/$name.txt"
  if ((rc != 0)); then
    failed=$((failed + 1))
    echo "=== $name: FAILED (exit $rc$( ((rc == 124)) && echo ", over ${limit} s")) after $((SECONDS - t0)) s"
  else
    echo "=== $name: done in $((SECONDS - t0)) s"
  fi
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 2
[[ -x "$BRRR" ]] || echo "next_checks.sh: no brrr at $BRRR (carry build/gpu-bundle, or set BRRR)"
step build-attach-probe 120 bash "$gpu_dir/build_cupti_cost.sh" "$out/attach_probe" "$arch" shared \
  attach_probe
step attach-concurrent 60 "$out/attach_probe" concurrent
step attach-steps 40 "$out/attach_probe" 30
step detach-wait 150 env ROUNDS=1 bash "$gpu_dir/detach_wait_check.sh" "$out/detach-wait"
step chunk-diag 150 env MODES="alone budget-3 sample-10-detach" ROUNDS=2 \
  bash "$gpu_dir/chunk_diag.sh"
step acceptance-nvcc 120 bash "$gpu_dir/acceptance.sh" --only nvcc --out "$out/acceptance"
echo "next_checks.sh: $failed step(s) failed; outputs in $out"
((failed == 0))
