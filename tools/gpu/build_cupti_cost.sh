#!/usr/bin/env bash
# Builds workloads/cupti_cost.cu (or another CUPTI workload: correlation_probe) with nvcc against
# the CUDA toolkit's own CUPTI, for tracing_cost.sh, sampling_diag.sh and host_cost_diag.sh. Prints
# one line saying what it used; on failure, nvcc's last lines, and exits 1.
#
#   build_cupti_cost.sh OUTPUT NVCC_ARCH [CUDART [SOURCE]]
#     CUDART: static (nvcc's default) or shared; SOURCE: a workload's name (default cupti_cost)
#
# Must never: set LD_LIBRARY_PATH (the program finds libcupti through its RPATH).
set -uo pipefail
output="$1" arch="$2" cudart="${3:-static}" source="${4:-cupti_cost}"
gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
cuda_home="$(dirname "$(dirname "$(readlink -f "$nvcc")")")"
cupti_h="$(find "$cuda_home/" /usr/local/cuda/ -name cupti.h 2>/dev/null | sed -n 1p)"
cupti_so="$(find "$cuda_home/" /usr/local/cuda/ -name 'libcupti.so' 2>/dev/null | sed -n 1p)"
echo "$source: nvcc $nvcc ($cudart cudart), cupti.h ${cupti_h:-missing}, libcupti.so ${cupti_so:-missing}"
if [[ -z "$cupti_h" || -z "$cupti_so" ]]; then
  echo "$source did not build: no CUPTI in the toolkit"
  exit 1
fi
if ! "$nvcc" -O2 -arch="$arch" -cudart "$cudart" -I"$(dirname "$cupti_h")" -L"$(dirname "$cupti_so")" \
  -Xlinker -rpath="$(dirname "$cupti_so")" -o "$output" \
  "$gpu_dir/workloads/$source.cu" -lcupti 2>"$output.nvcc.err"; then
  echo "$source did not build:"
  tail -n 20 "$output.nvcc.err"
  exit 1
fi
