#!/usr/bin/env bash
# Does brrr's own overhead estimate (the report's BRRR'S COST) match what was measured? tiny_ops at
# 200,000 launches: alone, host-only and 10 % sampled tracing, 3 rounds interleaved; prints each
# loop's ms and, for brrr's runs, the report's cost line and basis.
#   overhead_check.sh BRRR OUT
set -uo pipefail
brrr="$1" out="$2"
tiny=tools/gpu/workloads/tiny_ops.py
for i in 1 2 3; do
  for mode in alone host-only sample-10; do
    rm -f /tmp/oc.brrr /tmp/oc.json
    case "$mode" in
      alone) python3 "$tiny" --iters 200000 --result /tmp/oc.json >/dev/null 2>&1 ;;
      host-only) BRRR_CUPTI=0 "$brrr" run --quiet --output /tmp/oc.brrr -- \
        python3 "$tiny" --iters 200000 --result /tmp/oc.json >/dev/null 2>&1 ;;
      sample-10) BRRR_SAMPLE_DEVICE=10% "$brrr" run --quiet --output /tmp/oc.brrr -- \
        python3 "$tiny" --iters 200000 --result /tmp/oc.json >/dev/null 2>&1 ;;
    esac
    loop="$(python3 -c 'import json; print(round(json.load(open("/tmp/oc.json"))["loop_s"] * 1e3, 1))')"
    echo "$mode round $i: loop $loop ms" | tee -a "$out/overhead-check.txt"
    if [[ -f /tmp/oc.brrr ]]; then
      "$brrr" report /tmp/oc.brrr | sed -n "/BRRR'S COST/,\$p" | tee -a "$out/overhead-check.txt"
      "$brrr" report /tmp/oc.brrr | sed -n '/DEVICE SAMPLING/,/^$/p' | tee -a "$out/overhead-check.txt"
    fi
  done
done
