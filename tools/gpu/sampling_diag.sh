#!/usr/bin/env bash
# Where sampled tracing's fixed cost comes from: tiny_ops (200,000 launches) alone, host-only,
# 10 % sampling, 10 % without CUPTI callbacks; loop ms and CPU s (app + brrr), 3 rounds.
set -uo pipefail
brrr="$1" out="$2"
py=python3
tiny=tools/gpu/workloads/tiny_ops.py
for i in 1 2 3; do
  for mode in alone host-only sample-10 sample-10-nocb; do
    cmd=("$brrr" run --quiet --output /tmp/d.brrr -- "$py" "$tiny" --iters 200000 --result /tmp/d.json)
    case "$mode" in
      alone) cmd=("$py" "$tiny" --iters 200000 --result /tmp/d.json) ;;
      host-only) cmd=(env BRRR_CUPTI=0 "${cmd[@]}") ;;
      sample-10) cmd=(env BRRR_SAMPLE_DEVICE=10% "${cmd[@]}") ;;
      sample-10-nocb) cmd=(env BRRR_SAMPLE_DEVICE=10% BRRR_CALLBACKS=0 "${cmd[@]}") ;;
    esac
    rm -f /tmp/d.brrr*
    cpu="$("$py" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(round(r.ru_utime + r.ru_stime, 3))' "${cmd[@]}")"
    loop="$("$py" -c 'import json; print(round(json.load(open("/tmp/d.json"))["loop_s"] * 1e3, 1))')"
    echo "round $i $mode $loop $cpu" | tee -a "$out/diag.txt"
  done
done
