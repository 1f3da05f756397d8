#!/usr/bin/env bash
# Cost of Python frames in libbrrr.so, on the simulated device (BRRR_SIM_LAUNCH_NS=0,
# BRRR_SIM_KERNEL_NS=0, CUPTI off so that only the shim's host work is timed): builds the
# brrr_pybench extension (tools/bench/python_stack_bench_ext.cu) with nvcc against one python3,
# then runs tools/bench/python_stack_bench.py without the shim and preloaded in several settings.
# Prints medians (of REPETITIONS runs of CALLS calls each, ns of thread CPU time per call) of:
#   - CapturePythonFrames alone on a 30-frame stack of the real interpreter (python_capture_bench.cc,
#     CPython embedded), and with the stack interned as CommitHostRecord does;
#   - the same through the hooks: a cudaStreamQuery (queries always carry
#     Python frames) with Python frames minus the same with BRRR_PYTHON=0 (target <= 1 us);
#   - the launch hook's added cost over no shim, with a Python caller (30 frames) and from a C++
#     thread without Python, with sampling off, at the default 1 in N, and at N=1.
# Usage: [PYTHON=python3] [RUNTIME=sim|null] tools/bench/python_stack_bench.sh [build-dir]
#   (default build/default). RUNTIME=sim (default): the simulated runtime; RUNTIME=null: the
#   do-nothing libcudart of shim/bench_null_cudart.cc (target bench_null_cudart), the shim's own
#   cost without the simulator's noise.
# Targets (issue 3): <= 50 ns added per launch without stacks, <= 300 ns with stacks.
set -euo pipefail
build="${1:-build/default}"
python="${PYTHON:-/usr/bin/python3}"
shim="$build/lib/libbrrr.so"
sim="$build/simcuda/lib"
[[ "${RUNTIME:-sim}" == null ]] && sim="$build/shim/null_cudart"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
for f in "$shim" "$sim/libcudart.so.13" "$nvcc"; do
  [[ -e "$f" ]] || { echo "python_stack_bench: missing $f (build brrr_shim simcuda_runtime simcuda_cupti)" >&2; exit 1; }
done
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$build/tools/bench/python_stack_bench"
mkdir -p "$out"
read -r include suffix < <("$python" -c \
  'import sysconfig; print(sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX"))')
module="$out/brrr_pybench$suffix"
if [[ ! -e "$module" || "$here/python_stack_bench_ext.cu" -nt "$module" ]]; then
  "$nvcc" -O2 -std=c++17 -shared -cudart shared -Xcompiler=-fPIC,-fno-omit-frame-pointer \
    -I"$include" -I"$root" "$here/python_stack_bench_ext.cu" -o "$module"
fi

# The capture alone (python_capture_bench.cc: CPython embedded, the shim's core library linked).
core="$build/shim/libbrrr_shim_core.a"
[[ -e "$core" ]] || { echo "python_stack_bench: missing $core (build brrr_shim_core)" >&2; exit 1; }
read -r libdir pyver abiflags < <("$python" -c \
  'import sysconfig as s; print(s.get_config_var("LIBDIR"), s.get_config_var("VERSION"), s.get_config_var("ABIFLAGS") or "-")')
[[ "$abiflags" == - ]] && abiflags=""
capture_bench="$out/python_capture_bench-$pyver"
if [[ ! -e "$capture_bench" || "$here/python_capture_bench.cc" -nt "$capture_bench" || "$core" -nt "$capture_bench" ]]; then
  "${CXX:-g++}" -O2 -std=c++20 -fno-omit-frame-pointer -I"$include" -I"$root" \
    "$here/python_capture_bench.cc" "$core" -L"$libdir" -l"python$pyver$abiflags" -ldl -lm \
    -Wl,-rpath,"$libdir" -o "$capture_bench"
fi
echo "== one Python stack of ${DEPTH:-30} frames, captured alone (no CUDA call around it)"
DEPTH="${DEPTH:-30}" "$capture_bench" | while read -r name ns; do
  if [[ "$name" == "#" ]]; then echo "    $ns"; else printf '%-40s median %8.1f ns\n' "$name" "$ns"; fi
done
echo "== through the hooks, $(echo "${RUNTIME:-sim}") runtime"

common=(env LD_LIBRARY_PATH="$sim" PYTHONPATH="$out" BRRR_SIM_LAUNCH_NS=0 BRRR_SIM_KERNEL_NS=0
        BRRR_QUIET=1 BRRR_REPORT_WAIT_MS=0 BRRR_CUPTI=0)
preload=("${common[@]}" BRRR_BENCH_SEGMENT=create LD_PRELOAD="$shim")
run() { "$@" "$python" "$here/python_stack_bench.py"; }

declare -A base
echo "python: $("$python" -c 'import sys; print(sys.version.split()[0])'), runtime: ${RUNTIME:-sim}, $(nproc) cores"
while read -r name ns; do base[$name]=$ns; done < <(run "${common[@]}" | grep -v '^#')
for name in launch_python launch_native query_python; do
  printf '%-40s %-14s median %8.1f ns\n' "no shim" "$name" "${base[$name]}"
done

declare -A last
measure() {  # label, env settings...
  local label="$1"; shift
  local output
  output="$(run "${preload[@]}" "$@")"
  while read -r name ns; do
    last[$name]=$ns
    printf '%-40s %-14s median %8.1f ns   added %+8.1f ns\n' "$label" "$name" "$ns" \
      "$(echo "$ns - ${base[$name]}" | bc -l)"
  done < <(grep -v '^#' <<<"$output")
  grep '^#' <<<"$output" | sed "s/^#/    [$label]/" | grep -E 'status|version|failures|overflow|deepest|samples|innermost|outermost|period' || true
}

measure "stacks off" BRRR_STACKS=0
measure "stacks on, no Python, no sampling" BRRR_PYTHON=0 BRRR_LAUNCH_SAMPLE=0
no_python_query=${last[query_python]}
measure "stacks on, Python, sampling off" BRRR_LAUNCH_SAMPLE=0
python_query=${last[query_python]}
measure "stacks on, Python, default 1-in-N" 
measure "stacks on, Python, N=1" BRRR_LAUNCH_SAMPLE=1
printf '\none captured %s-frame Python stack (query with - without Python frames): %.1f ns (target <= 1000)\n' \
  "${DEPTH:-30}" "$(echo "$python_query - $no_python_query" | bc -l)"
