#!/usr/bin/env bash
# Multi-process jobs, on the simulated device:
#   1. collector CPU per process drained: RANKS (default 8) ranks of tests/e2e/rank_worker.cu
#      (rank r launches 100 * (r + 1) * scale kernels) started by tests/e2e/job_launcher.py under a
#      plain LD_PRELOAD, each drained by its own `brrr attach`; the CPU (user + system) of every
#      collector, measured by collector_cpu.py as a subreaper, at scale 1 and 50, and from the two
#      the marginal CPU per host call drained and the fixed cost per process;
#   2. the time to merge 64 rank files: 64 per-process .brrr files written by plain-preload runs
#      of rank_worker (RANK=0..63), joined by `brrr merge --quiet`, median of REPEAT runs.
#   3. MergeJob alone on 8, 64 and 512 full-size reports (brrr_job_benchmark, Google Benchmark).
# Usage: tools/bench/job_bench.sh [build-dir]   (default build/default; targets brrr brrr_shim
#   simcuda_runtime simcuda_cupti e2e_rank_worker)
set -euo pipefail
build="${1:-build/default}"
ranks="${RANKS:-8}"
repeat="${REPEAT:-7}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
brrr="$build/lib/brrr"
shim="$build/lib/libbrrr.so"
worker="$build/tests/e2e/e2e_rank_worker"
for f in "$brrr" "$shim" "$worker" "$build/simcuda/lib/libcudart.so.13"; do
  [[ -e "$f" ]] || { echo "job_bench: missing $f" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH="$build/simcuda/lib"

# One job of $ranks ranks at launch scale $1 under the subreaper; prints the collectors' CPU.
collector_cpu() {
  local scale="$1"
  rm -f "$work"/cpu-*.brrr
  BRRR_QUIET=1 BRRR_OUTPUT="$work/cpu-%r.brrr" LD_PRELOAD="$shim" \
    /usr/bin/python3 "$here/collector_cpu.py" /usr/bin/python3 "$root/tests/e2e/job_launcher.py" \
    "$worker" "$ranks" --scale "$scale" >"$work/cpu.out"
  local calls=0 n
  for f in "$work"/cpu-*.brrr; do
    n=$("$brrr" report "$f" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events"]["host"]["recorded"])')
    calls=$((calls + n))
  done
  /usr/bin/python3 - "$work/cpu.out" "$calls" "$scale" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.startswith("collector")]
cpu = [float(r[2]) + float(r[3]) for r in rows]
calls, scale = int(sys.argv[2]), sys.argv[3]
print(f"scale {scale}: {len(cpu)} collectors, {calls} host calls drained in all; CPU per collector "
      f"(user+sys) median {statistics.median(cpu):.1f} ms (min {min(cpu):.1f}, max {max(cpu):.1f}); "
      f"total {sum(cpu):.1f} ms")
print(f"TOTAL {sum(cpu):.3f} {calls}")
PY
}

echo "== collector CPU per process drained ($ranks ranks, rank r: 100*(r+1)*scale launches) =="
small="$(collector_cpu 1)"
large="$(collector_cpu 50)"
grep -v TOTAL <<<"$small"
grep -v TOTAL <<<"$large"
read -r _ cpu1 calls1 <<<"$(grep TOTAL <<<"$small")"
read -r _ cpu2 calls2 <<<"$(grep TOTAL <<<"$large")"
/usr/bin/python3 -c "import sys; c1,n1,c2,n2=map(float,sys.argv[1:]); print(f'marginal collector CPU: {(c2-c1)/(n2-n1)*1e6:.0f} ns per host call drained; fixed cost per process: {(c1-(c2-c1)/(n2-n1)*n1)/$ranks:.1f} ms (symbolization, start-up)')" "$cpu1" "$calls1" "$cpu2" "$calls2"

echo "== merge of 64 rank files =="
for r in $(seq 0 63); do
  RANK=$r BRRR_QUIET=1 BRRR_OUTPUT="$work/rank-%r.brrr" LD_PRELOAD="$shim" "$worker" >/dev/null
done
ls "$work"/rank-*.brrr | wc -l | xargs echo "files:"
du -ch "$work"/rank-*.brrr | tail -1 | awk '{print "total size: " $1}'
times=()
for i in $(seq "$repeat"); do
  start=$(date +%s%N)
  "$brrr" merge "$work"/rank-*.brrr --output "$work/job.brrr" --quiet 2>/dev/null
  end=$(date +%s%N)
  times+=($(( (end - start) / 1000 )))
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "brrr merge of 64 files: median %.1f ms (min %.1f, max %.1f) over %d runs\n", a[int((NR+1)/2)]/1000, a[1]/1000, a[NR]/1000, NR}'
"$brrr" report "$work/job.brrr" | sed -n '/^PROCESSES/p;/^STRAGGLER/,+1p'

echo "== MergeJob alone (collector/job/job_merge_benchmark.cc, full-size reports) =="
if [[ -x "$build/collector/job/brrr_job_benchmark" ]]; then
  "$build/collector/job/brrr_job_benchmark" 2>/dev/null | grep BM_
else
  echo "(build the target brrr_job_benchmark)"
fi
