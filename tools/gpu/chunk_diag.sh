#!/usr/bin/env bash
# When, in a run, brrr's modes make launches slow (issue 26): workloads/cupti_cost.cu `none` (shared
# cudart, 1,000,000 empty-kernel launches) with its loop timed in 40 chunks, alone and under
# `brrr run` in each mode, ROUNDS rounds (default 2). One line per run: the mode, the round, ns per
# launch, then each chunk's ns per launch / 10 (a window shows as a chunk above its neighbours, a
# state CUPTI is left in as a step); under brrr, the report's windows, traced time, span, detaches
# and brrr's own cost estimate (% of wall).
#
#   [BRRR=lib/brrr] [MODES="alone host-only ..."] [ROUNDS=N] [PIN="taskset -c 2-9"] chunk_diag.sh
#
# Modes: alone, host-only, budget-1, budget-3, sample-10-detach, budget-1-attached, and
# sample-10-detach-window (the detach waits one window length after each window, as before the
# wait adapted: compare it with sample-10-detach).
# Must never: be read as a benchmark of one run (it prints every run; compare rounds).
set -uo pipefail
B="${BRRR:-build/gpu-bundle/lib/brrr}"
bash tools/gpu/build_cupti_cost.sh /tmp/cc sm_90 shared >/dev/null || exit 1
declare -A envs=([alone]="" [host-only]="BRRR_CUPTI=0" [budget-1]="BRRR_OVERHEAD_BUDGET=1%"
  [budget-3]="BRRR_OVERHEAD_BUDGET=3%" [sample-10-detach]="BRRR_SAMPLE_DEVICE=10% BRRR_CUPTI_DETACH=1"
  [budget-1-attached]="BRRR_OVERHEAD_BUDGET=1% BRRR_CUPTI_DETACH=0"
  [sample-10-detach-window]="BRRR_SAMPLE_DEVICE=10% BRRR_CUPTI_DETACH=1 BRRR_DETACH_WAIT=window")
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  for m in ${MODES:-alone host-only budget-1 budget-3 sample-10-detach}; do
    pre=(env)
    [[ -n "${envs[$m]}" ]] && read -r -a kv <<<"${envs[$m]}" && pre+=("${kv[@]}")
    [[ "$m" != alone ]] && pre+=("$B" run --quiet --output /tmp/x.brrr --)
    rm -f /tmp/x.brrr*
    CUPTI_COST_CHUNKS=40 ${PIN-taskset -c 2-9} "${pre[@]}" /tmp/cc none --launches 1000000 >/tmp/o 2>/tmp/e
    printf '%-17s r%d %6.0f :: %s\n' "$m" "$r" "$(cut -f2 /tmp/o)" \
      "$(awk -F'\t' '/^chunk/{printf "%d ", $4/10}' /tmp/e)"
    [[ "$m" == alone ]] && continue
    "$B" report /tmp/x.brrr --json | python3 -c '
import json, sys
r = json.load(sys.stdin); d = r.get("device_sampling", {}); o = r.get("overhead", {})
print("   ", {k: d.get(k) for k in ("windows", "traced_ns", "span_ns", "cupti_detaches")},
      "untimed", r.get("coverage", {}).get("untimed_device_ops"),
      "cost", o.get("pct_of_wall"), "hidden_ms", (o.get("hidden_by_device_ns") or 0) / 1e6)'
  done
done
