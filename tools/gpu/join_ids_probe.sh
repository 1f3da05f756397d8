#!/usr/bin/env bash
# Can the collector join hooked runtime calls to their kernels by correlation id, and what would
# dropping CUPTI's RUNTIME (and DRIVER) activity records save per launch? (issue 20, on the real
# driver; GPU machine only):
#  1. workloads/correlation_probe.cu under each set of activity kinds and callback domains: whether
#     the id a driver API callback sees inside a runtime call is its kernel's or copy's id;
#  2. workloads/cupti_cost.cu in the modes that answer the cost question, rounds interleaved.
#
#   join_ids_probe.sh NVCC_ARCH OUT [ROUNDS]     writes OUT/join-ids.txt and OUT/join-ids-cost.tsv
#   (PROBE=0 skips part 1; COST_MODES replaces part 2's list of cupti_cost modes)
#
# Must never: set LD_LIBRARY_PATH (both programs find libcupti through their RPATH).
set -uo pipefail
arch="$1" out="$2" rounds="${3:-3}"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/brrr-join-ids.XXXXXX")" || exit 2
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out" || exit 2

"$gpu_dir/build_cupti_cost.sh" "$scratch/probe" "$arch" shared correlation_probe || exit 1
"$gpu_dir/build_cupti_cost.sh" "$scratch/cost" "$arch" shared cupti_cost || exit 1
[[ "${PROBE:-1}" == 0 ]] || {
  for kinds in kernel kernel+runtime kernel+driver kernel+runtime+driver; do
    for callbacks in driver driver+runtime; do
      timeout 120 "$scratch/probe" "$kinds" "$callbacks" --ops 2000 2>&1 ||
        echo "correlation_probe $kinds $callbacks failed (exit $?)"
    done
  done
} | tee "$out/join-ids.txt"

: >"$out/join-ids-cost.tsv"
read -r -a modes <<<"${COST_MODES:-none kernel runtime driver cb-launch brrr-set brrr-set-nort brrr-set-nort-nodrv runtime-nolaunch brrr-set-nolaunch}"
for ((i = 1; i <= rounds; i++)); do
  for m in "${modes[@]}"; do
    timeout 120 "$scratch/cost" "$m" >>"$out/join-ids-cost.tsv" 2>"$scratch/err" ||
      { echo "cupti_cost $m failed:"; tail -n 3 "$scratch/err"; }
  done
  echo "cost round $i/$rounds done"
done
python3 - "$out/join-ids-cost.tsv" <<'EOF' | tee -a "$out/join-ids.txt"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split("\t")
    if len(p) == 4:
        rows.setdefault(p[0], []).append(float(p[1]))
base = statistics.median(rows["none"]) if rows.get("none") else None
print("cupti_cost, ns per empty-kernel launch (shared cudart), median of rounds, and added over none")
for mode, r in rows.items():
    m = statistics.median(r)
    added = f"{m - base:+8.0f}" if base is not None else "       -"
    print(f"  {mode:<22} {m:8.0f} {added}   runs: {' '.join(f'{x:.0f}' for x in r)}")
EOF
