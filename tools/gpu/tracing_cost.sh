#!/usr/bin/env bash
# What tracing costs on the real driver (issue 26), called by acceptance.sh's `cost` section:
#  1. CUPTI alone, per activity kind and callback domain: workloads/cupti_cost.cu built with nvcc,
#     each mode in its own process, rounds interleaved; the host ns per empty-kernel launch;
#  2. brrr's modes on the launch-bound PyTorch loop (workloads/tiny_ops.py): alone, full tracing,
#     no CUPTI callbacks, no launch stacks, host-only (BRRR_CUPTI=0), torch.profiler; interleaved;
#  3. sampled device tracing on the same loop made 10x longer (200,000 launches, so that 50 ms
#     windows at 10 % fall in it many times): alone, full, 10 %, 1 %, host-only; the loop's wall
#     time and the CPU time of app + brrr (RUSAGE_CHILDREN of a wrapper) per launch.
# Prints the medians and writes OUT/cost-cupti.tsv, OUT/cost-modes.tsv, OUT/cost-sampling.tsv,
# OUT/cost.txt.
#
#   tracing_cost.sh BRRR PYTHON OUT ROUNDS NVCC_ARCH
#
# Must never: fail the acceptance (it is a measurement; a mode that fails prints why and is left
# out of its median), or set LD_LIBRARY_PATH for brrr (only for the standalone CUPTI program).
set -uo pipefail
brrr="$1" py="$2" out="$3" rounds="$4" arch="$5"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/brrr-cost.XXXXXX")" || exit 2
trap 'rm -rf "$scratch"' EXIT

: >"$out/cost-cupti.tsv"
if "$gpu_dir/build_cupti_cost.sh" "$scratch/cupti_cost" "$arch"; then
  modes=(none kernel kernel+latency kernel-off memcpy+memset runtime driver sync cb-launch
    cb-driver-domain cb-runtime-domain brrr-set brrr-set-off brrr-set-off-nolat set-off-nosub
    brrr-set-unsub brrr-set-finalize)
  for ((i = 1; i <= rounds; i++)); do
    for m in "${modes[@]}"; do
      timeout 120 "$scratch/cupti_cost" "$m" >>"$out/cost-cupti.tsv" 2>"$scratch/err" ||
        { echo "cupti_cost $m failed:"; tail -n 3 "$scratch/err"; }
    done
    echo "cupti round $i/$rounds done"
  done
fi

: >"$out/cost-modes.tsv"
tiny="$gpu_dir/workloads/tiny_ops.py"
for ((i = 1; i <= rounds; i++)); do
  for mode in alone full no-callbacks no-launch-stacks host-only torch.profiler; do
    result="$scratch/$mode-$i.json"
    report="$scratch/$mode.brrr"
    cmd=(timeout 300 "$brrr" run --quiet --output "$report" -- "$py" "$tiny" --result "$result")
    case "$mode" in
      alone) cmd=(timeout 300 "$py" "$tiny" --result "$result") ;;
      no-callbacks) cmd=(env BRRR_CALLBACKS=0 "${cmd[@]}") ;;
      no-launch-stacks) cmd=(env BRRR_LAUNCH_SAMPLE=0 "${cmd[@]}") ;;
      host-only) cmd=(env BRRR_CUPTI=0 "${cmd[@]}") ;;
      torch.profiler) cmd=(timeout 300 "$py" "$tiny" --result "$result" --torch-profiler "$scratch/p.json") ;;
    esac
    t0=$(date +%s%N)
    "${cmd[@]}" >/dev/null 2>"$scratch/err" || { echo "$mode run $i failed:"; tail -n 3 "$scratch/err"; }
    t1=$(date +%s%N)
    loop_s="$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["loop_s"])' "$result" 2>/dev/null)"
    printf '%s\t%s\t%s\n' "$mode" "${loop_s:--}" "$(((t1 - t0) / 1000000))" >>"$out/cost-modes.tsv"
    if [[ "$i" == 1 && "$mode" != alone && "$mode" != torch.profiler ]]; then
      "$brrr" report "$report" >"$out/cost-$mode.report.txt" 2>&1
    fi
  done
  echo "modes round $i/$rounds done"
done

# 3. Sampled device tracing, long loop; CPU of the whole process tree the wrapper waited for.
: >"$out/cost-sampling.tsv"
long_iters=200000
for ((i = 1; i <= rounds; i++)); do
  for mode in alone full sample-10 sample-1 host-only; do
    result="$scratch/s-$mode-$i.json"
    report="$scratch/s-$mode.brrr"
    cmd=(timeout 300 "$brrr" run --quiet --output "$report" -- "$py" "$tiny" --iters "$long_iters"
      --result "$result")
    case "$mode" in
      alone) cmd=(timeout 300 "$py" "$tiny" --iters "$long_iters" --result "$result") ;;
      sample-10) cmd=(env BRRR_SAMPLE_DEVICE=10% "${cmd[@]}") ;;
      sample-1) cmd=(env BRRR_SAMPLE_DEVICE=1% BRRR_SAMPLE_WINDOW_MS=20 "${cmd[@]}") ;;
      host-only) cmd=(env BRRR_CUPTI=0 "${cmd[@]}") ;;
    esac
    cpu="$("$py" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)' "${cmd[@]}" 2>"$scratch/err")" ||
      { echo "$mode sampling run $i failed:"; tail -n 3 "$scratch/err"; }
    loop_s="$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["loop_s"])' "$result" 2>/dev/null)"
    printf '%s\t%s\t%s\n' "$mode" "${loop_s:--}" "${cpu:--}" >>"$out/cost-sampling.tsv"
    if [[ "$i" == 1 && "$mode" != alone ]]; then
      "$brrr" report "$report" >"$out/cost-sampling-$mode.report.txt" 2>&1
      "$brrr" report "$report" --json >"$out/cost-sampling-$mode.report.json" 2>&1
    fi
  done
  echo "sampling round $i/$rounds done"
done

"$py" - "$out/cost-cupti.tsv" "$out/cost-modes.tsv" "$out/cost-sampling.tsv" "$long_iters" <<'EOF' | tee "$out/cost.txt"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split("\t")
    if len(p) == 4:
        rows.setdefault(p[0], []).append((float(p[1]), float(p[2]), int(p[3])))
if rows:
    base = statistics.median(r[0] for r in rows.get("none", [(0, 0, 0)])) or None
    print("CUPTI alone, empty-kernel launches (median of rounds)")
    print(f"{'mode':<20} {'ns/launch':>10} {'added ns':>9} {'ns/launch synced':>17} {'records':>9}")
    for mode, r in rows.items():
        e = statistics.median(x[0] for x in r)
        s = statistics.median(x[1] for x in r)
        added = f"{e - base:9.0f}" if base else "        -"
        print(f"{mode:<20} {e:10.0f} {added} {s:17.0f} {r[0][2]:9d}")
modes = {}
for line in open(sys.argv[2]):
    p = line.rstrip("\n").split("\t")
    if len(p) == 3 and p[1] != "-":
        modes.setdefault(p[0], []).append((float(p[1]), float(p[2]) / 1e3))
if modes:
    base = statistics.median(x[0] for x in modes["alone"]) if "alone" in modes else None
    print("\ntiny_ops.py (20000 launches), median of rounds")
    print(f"{'mode':<18} {'runs':>4} {'loop ms':>9} {'vs alone':>9} {'us/launch added':>16} {'wall s':>7}")
    for mode, r in modes.items():
        loop = statistics.median(x[0] for x in r)
        wall = statistics.median(x[1] for x in r)
        rel = f"{(loop / base - 1) * 100:+8.1f}%" if base else "        -"
        add = f"{(loop - base) / 20000 * 1e6:16.2f}" if base else "               -"
        print(f"{mode:<18} {len(r):4d} {loop * 1e3:9.1f} {rel} {add} {wall:7.2f}")
sampling = {}
for line in open(sys.argv[3]):
    p = line.rstrip("\n").split("\t")
    if len(p) == 3 and p[1] != "-" and p[2] != "-":
        sampling.setdefault(p[0], []).append((float(p[1]), float(p[2])))
if sampling:
    n = int(sys.argv[4])
    base = statistics.median(x[0] for x in sampling["alone"]) if "alone" in sampling else None
    cpu0 = statistics.median(x[1] for x in sampling["alone"]) if "alone" in sampling else None
    print(f"\ntiny_ops.py ({n} launches): sampled device tracing, median of rounds")
    print(f"{'mode':<12} {'runs':>4} {'loop ms':>9} {'vs alone':>9} {'us/launch added':>16}"
          f" {'CPU s':>7} {'CPU us/launch added':>20}")
    for mode, r in sampling.items():
        loop = statistics.median(x[0] for x in r)
        cpu = statistics.median(x[1] for x in r)
        rel = f"{(loop / base - 1) * 100:+8.1f}%" if base else "        -"
        add = f"{(loop - base) / n * 1e6:16.2f}" if base else "               -"
        cadd = f"{(cpu - cpu0) / n * 1e6:20.2f}" if cpu0 else "                   -"
        print(f"{mode:<12} {len(r):4d} {loop * 1e3:9.1f} {rel} {add} {cpu:7.2f} {cadd}")
EOF
