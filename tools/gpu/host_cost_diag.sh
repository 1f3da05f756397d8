#!/usr/bin/env bash
# What brrr's host hooks cost per CUDA launch on the real driver (issue 26), apart from CUPTI and
# from Python: workloads/cupti_cost.cu built with a shared cudart (so that the shim's hooks see its
# runtime calls), mode `none` (no CUPTI of its own), LAUNCHES (200,000) empty-kernel launches,
# alone and under `brrr run` in the modes below, ROUNDS rounds, interleaved. Each brrr mode's first
# report is kept (OUT/host-MODE.report.txt and .report.json): its BRRR'S COST line is brrr's own
# estimate, to set beside the measured difference, and its kernel figures, scaled from the windows
# in a sampled mode, are set beside the fully traced run's (the same launches in every mode): how
# far sampling's estimate is from full tracing on the real driver.
#
#   host_cost_diag.sh BRRR OUT [ROUNDS] [NVCC_ARCH]
#
# Modes (MODES replaces the list; EXTRA_MODES adds NAME=VAR=VALUE[,VAR=VALUE] ones):
#   alone; host-only (BRRR_CUPTI=0); host-only-paused (and BRRR_START=paused: the hooks pass
#   through without recording); host-only-nostacks (BRRR_STACKS=0); host-only-nolaunchsample
#   (BRRR_LAUNCH_SAMPLE=0); full (device tracing on); sample-10 (10 % windows); sample-10-detach
#   (and CUPTI detached between them); the others of brrr_modes.sh (full-nodriverrecords,
#   budget-3 (detached between windows, as a budget does), budget-3-attached, ...). Any other
#   name is refused. A sampled run's traced share is printed beside brrr's estimate.
# Prints the medians and writes OUT/host-cost.tsv and OUT/host-cost.txt.
#
# Must never: stop at a failed run (it prints why and leaves the run out of its median).
set -uo pipefail
brrr="$1" out="$2" rounds="${3:-5}" arch="${4:-sm_90}"
launches="${LAUNCHES:-200000}"
py="${PYTHON:-python3}"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/brrr-hostcost.XXXXXX")" || exit 2
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"

if ! "$gpu_dir/build_cupti_cost.sh" "$scratch/cupti_cost" "$arch" shared; then
  echo "host_cost_diag: cupti_cost did not build; nothing measured"
  exit 1
fi

modes=() mode_cmd=() # set by brrr_modes and brrr_mode_command
# shellcheck source-path=SCRIPTDIR source=brrr_modes.sh
source "$gpu_dir/brrr_modes.sh"
brrr_modes alone host-only host-only-paused host-only-nostacks host-only-nolaunchsample full \
  sample-10-detach
: >"$out/host-cost.tsv"
for ((i = 1; i <= rounds; i++)); do
  for mode in "${modes[@]}"; do
    brrr_mode_command "$mode" "$brrr" "$scratch/h.brrr" "$scratch/cupti_cost" none \
      --launches "$launches"
    rm -f "$scratch"/h.brrr*
    # cupti_cost prints "none<TAB>ns_per_launch<TAB>ns_per_launch_synced<TAB>records".
    if ! line="$(timeout 120 "${mode_cmd[@]}" 2>"$scratch/err" | grep -m1 '^none	')"; then
      echo "$mode round $i failed:"
      tail -n 3 "$scratch/err"
      continue
    fi
    printf '%s\t%s\n' "$mode" "$(cut -f2,3 <<<"$line")" >>"$out/host-cost.tsv"
    if [[ "$i" == 1 && "$mode" != alone ]]; then
      "$brrr" report "$scratch/h.brrr" >"$out/host-$mode.report.txt" 2>&1
      "$brrr" report "$scratch/h.brrr" --json >"$out/host-$mode.report.json" 2>/dev/null
    fi
  done
  echo "host cost round $i/$rounds done"
done

"$py" - "$out/host-cost.tsv" "$out" "$launches" <<'PY' | tee "$out/host-cost.txt"
import os, re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.rstrip("\n").split("\t")
    if len(p) == 3:
        rows.setdefault(p[0], []).append((float(p[1]), float(p[2])))
base = statistics.median(r[0] for r in rows.get("alone", [(0, 0)]))
print(f"cupti_cost none (shared cudart), {int(sys.argv[3]):,} empty-kernel launches, median of rounds")
print(f"{'mode':<26} {'runs':>4} {'ns/launch':>10} {'added ns':>9} {'synced':>8}  brrr's own estimate")
for mode, r in rows.items():
    e = statistics.median(x[0] for x in r)
    s = statistics.median(x[1] for x in r)
    estimate = ""
    path = os.path.join(sys.argv[2], f"host-{mode}.report.txt")
    if os.path.exists(path):
        text = open(path).read()
        m = re.search(r"BRRR'S COST\s+(.*)", text)
        h = re.search(r"hooks:\s+([\d,]+)\s+calls\s+recorded\s+x\s+(\d+)\s+ns", text)
        d = re.search(r"DEVICE SAMPLING\s+(\S+)", text)
        estimate = (m.group(1) if m else "no BRRR'S COST line") + (
            f" [{h.group(1)} calls x {h.group(2)} ns]" if h else "") + (
            f" [{d.group(1)} traced]" if d else "")
    print(f"{mode:<26} {len(r):>4} {e:10.0f} {e - base:9.0f} {s:8.0f}  {estimate}")

# Kernel figures of each mode's first report; a sampled mode's are estimates, set beside full's.
import json
def kernels(mode):
    try:
        report = json.load(open(os.path.join(sys.argv[2], f"host-{mode}.report.json")))
    except (OSError, ValueError):
        return None
    k, s = report.get("kernels", {}), report.get("device_sampling", {})
    calls = k.get("launch_calls") or 0
    return {"calls": calls, "launches": k.get("launches", 0), "device_ns": k.get("device_ns", 0),
            "windows": s.get("windows"),
            "traced": s.get("traced_ns", 0) / s["span_ns"] if s.get("span_ns") else None,
            "early": s.get("calls_classified_early"), "detaches": s.get("cupti_detaches"),
            "overhead": report.get("overhead", {}).get("pct_of_wall")}
full = kernels("full")
ratio = lambda k, key: (f"{k[key] / full[key]:.3f}" if full and full[key] else "-")
show = lambda v, f: "-" if v is None else format(v, f)
print()
print("the same launches in every mode: a sampled mode's kernels and device time are estimates")
print(f"{'mode':<26} {'launch calls':>12} {'kernels':>10} {'vs full':>8} {'device ms':>10}"
      f" {'vs full':>8} {'windows':>7} {'traced':>7} {'early':>6} {'detaches':>8} {'cost %':>7}")
for mode in rows:
    k = kernels(mode)
    if k is None or mode == "alone":
        continue
    print(f"{mode:<26} {k['calls']:>12,} {k['launches']:>10,} {ratio(k, 'launches'):>8}"
          f" {k['device_ns'] / 1e6:>10.2f} {ratio(k, 'device_ns'):>8} {show(k['windows'], ''):>7}"
          f" {show(k['traced'] and 100 * k['traced'], '.1f'):>7} {show(k['early'], ''):>6}"
          f" {show(k['detaches'], ''):>8} {show(k['overhead'], '.2f'):>7}")
PY
