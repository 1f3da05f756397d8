#!/usr/bin/env bash
# CPU time (app + brrr, from the children's rusage) per launch on the simulated device, for each
# way of tracing the device, side by side: the app alone, full tracing, --sample-device=10%,
# --overhead-budget=2% and host-only (--no-cupti). Rounds interleave the modes; prints each mode's
# median CPU and wall over the rounds and the CPU per launch it adds to the app alone.
# Usage: [N=300000] [ROUNDS=3] [CALL_NS=0] tools/bench/tracing_modes.sh [build-dir]
#   CALL_NS: SIMCUDA_CUPTI_CALL_NS, what the simulated CUPTI adds to each call while tracing
#            (0: the simulator's own costs; ~1000 stands for a real driver, DESIGN.md fact 18).
set -euo pipefail
build="${1:-build/default}"
n="${N:-300000}"
rounds="${ROUNDS:-3}"
app="$build/tests/e2e/e2e_launch_bound"
brrr="$build/lib/brrr"
for f in "$app" "$brrr"; do
  [[ -x "$f" ]] || { echo "tracing_modes: missing $f (build the default preset)" >&2; exit 1; }
done
export LD_LIBRARY_PATH="$build/simcuda/lib" SIMCUDA_CUPTI_CALL_NS="${CALL_NS:-0}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
modes=(alone full sample-10% budget-2% host-only)
run() {  # mode -> "cpu_s wall_s"
  rm -f "$out"/*.brrr
  local cmd
  case "$1" in
    alone) cmd=("$app" "$n") ;;
    full) cmd=("$brrr" run --quiet --output "$out/r.brrr" -- "$app" "$n") ;;
    sample-10%) cmd=("$brrr" run --quiet --sample-device=10% --output "$out/r.brrr" -- "$app" "$n") ;;
    budget-2%) cmd=("$brrr" run --quiet --overhead-budget=2% --output "$out/r.brrr" -- "$app" "$n") ;;
    host-only) cmd=("$brrr" run --quiet --no-cupti --output "$out/r.brrr" -- "$app" "$n") ;;
  esac
  python3 -c 'import resource, subprocess, sys, time
t = time.time()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
w = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.3f} {w:.3f}")' "${cmd[@]}"
}
declare -A cpu wall
for ((round = 1; round <= rounds; round++)); do
  echo "tracing_modes: round $round of $rounds ($n launches per run)" >&2
  for mode in "${modes[@]}"; do
    read -r c w < <(run "$mode")
    cpu[$mode]+="$c "
    wall[$mode]+="$w "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(echo "${cpu[alone]}" | median)
printf '%-12s %10s %10s %16s\n' mode "cpu s" "wall s" "us/launch added"
for mode in "${modes[@]}"; do
  c=$(echo "${cpu[$mode]}" | median)
  w=$(echo "${wall[$mode]}" | median)
  printf '%-12s %10s %10s %16.2f\n' "$mode" "$c" "$w" "$(echo "($c - $base) * 1000000 / $n" | bc -l)"
done
