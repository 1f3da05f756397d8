#!/usr/bin/env bash
# Where sampled tracing's cost between windows comes from (issue 26), on the real driver:
#  1. CUPTI alone (workloads/cupti_cost.cu), empty-kernel launches in the state CUPTI is left in
#     between windows: brrr's set on for the warm-up, then kinds off (still subscribed), never
#     subscribed, unsubscribed, or detached with cuptiFinalize (and attached again after the loop,
#     which must give a record per launch); ROUNDS rounds, interleaved;
#  2. brrr on tiny_ops at ITERS (200,000) launches: alone, host-only, 10 % sampling, 10 % without
#     CUPTI callbacks, plus any EXTRA_MODES given as NAME=VAR=VALUE[,VAR=VALUE] (e.g.
#     sample-10-detach=BRRR_SAMPLE_DEVICE=10%,BRRR_SAMPLE_DETACH=1); loop ms and CPU s (app +
#     brrr) per run. MODES replaces the list of modes (e.g. MODES="alone full"; "full" is brrr
#     without sampling); CUPTI_ROUNDS (default ROUNDS; 0 = skip part 1) sets part 1's rounds.
# Prints the medians and writes OUT/diag-cupti.tsv, OUT/diag-brrr.tsv, OUT/diag.txt.
#
#   sampling_diag.sh BRRR OUT [ROUNDS] [NVCC_ARCH]
#
# Must never: stop at a failed run (it prints why and leaves the run out of its median).
set -uo pipefail
brrr="$1" out="$2" rounds="${3:-3}" arch="${4:-sm_90}"
iters="${ITERS:-200000}"
py="${PYTHON:-python3}"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tiny="$gpu_dir/workloads/tiny_ops.py"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/brrr-diag.XXXXXX")" || exit 2
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"

: >"$out/diag-cupti.tsv"
if [[ "${CUPTI_ROUNDS:-$rounds}" != 0 ]] &&
  "$gpu_dir/build_cupti_cost.sh" "$scratch/cupti_cost" "$arch"; then
  for ((i = 1; i <= ${CUPTI_ROUNDS:-$rounds}; i++)); do
    for m in none brrr-set brrr-set-off set-off-nosub brrr-set-unsub brrr-set-finalize; do
      timeout 120 "$scratch/cupti_cost" "$m" >>"$out/diag-cupti.tsv" 2>"$scratch/err" ||
        { echo "cupti_cost $m failed:"; tail -n 3 "$scratch/err"; }
      [[ -s "$scratch/err" ]] && { echo "cupti_cost $m said:"; tail -n 3 "$scratch/err"; }
    done
    echo "cupti round $i/$rounds done"
  done
fi

modes=() mode_cmd=() # set by brrr_modes and brrr_mode_command
# shellcheck source-path=SCRIPTDIR source=brrr_modes.sh
source "$gpu_dir/brrr_modes.sh"
brrr_modes alone host-only sample-10 sample-10-nocb
: >"$out/diag-brrr.tsv"
for ((i = 1; i <= rounds; i++)); do
  for mode in "${modes[@]}"; do
    brrr_mode_command "$mode" "$brrr" "$scratch/d.brrr" "$py" "$tiny" --iters "$iters" \
      --result "$scratch/d.json"
    rm -f "$scratch"/d.brrr* "$scratch/d.json"
    cpu="$("$py" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(round(r.ru_utime + r.ru_stime, 3))' "${mode_cmd[@]}" 2>"$scratch/err")"
    loop="$("$py" -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["loop_s"] * 1e3, 1))' \
      "$scratch/d.json" 2>/dev/null)" || { echo "$mode round $i failed:"; tail -n 3 "$scratch/err"; continue; }
    printf '%s\t%s\t%s\n' "$mode" "$loop" "$cpu" >>"$out/diag-brrr.tsv"
    if [[ "$i" == 1 && "$mode" != alone ]]; then
      "$brrr" report "$scratch/d.brrr" >"$out/diag-$mode.report.txt" 2>&1
    fi
  done
  echo "brrr round $i/$rounds done"
done

"$py" - "$out/diag-cupti.tsv" "$out/diag-brrr.tsv" "$iters" <<'PY' | tee "$out/diag.txt"
import statistics, sys
def rows(path, width):
    out = {}
    for line in open(path):
        p = line.rstrip("\n").split("\t")
        if len(p) == width:
            out.setdefault(p[0], []).append(p[1:])
    return out
cupti = rows(sys.argv[1], 4)
if cupti:
    base = statistics.median(float(r[0]) for r in cupti.get("none", [["0"]]))
    print("CUPTI alone, 200,000 empty-kernel launches, median of rounds")
    print(f"{'mode':<20} {'runs':>4} {'ns/launch':>10} {'added ns':>9} {'records':>8}")
    for mode, r in cupti.items():
        e = statistics.median(float(x[0]) for x in r)
        print(f"{mode:<20} {len(r):>4} {e:10.0f} {e - base:9.0f} {r[0][2]:>8}")
brrr = rows(sys.argv[2], 3)
if brrr:
    base = statistics.median(float(r[0]) for r in brrr.get("alone", [["0"]]))
    iters = int(sys.argv[3])
    print(f"\ntiny_ops.py, {iters:,} launches, median of rounds")
    print(f"{'mode':<20} {'runs':>4} {'loop ms':>9} {'vs alone':>9} {'us/launch':>10} {'CPU s':>7}")
    for mode, r in brrr.items():
        loop = statistics.median(float(x[0]) for x in r)
        cpu = statistics.median(float(x[1]) for x in r)
        rel = f"{(loop / base - 1) * 100:+8.1f}%" if base else "        -"
        print(f"{mode:<20} {len(r):>4} {loop:9.1f} {rel} {(loop - base) * 1e3 / iters:10.2f} {cpu:7.2f}")
PY
