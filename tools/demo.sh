#!/usr/bin/env bash
# The main job: builds brrr (installing what is missing), then profiles the bundled demo workload,
# prints the report and writes it as a page, build/demo-report.html, whose path it prints.
# Uses the real GPU when one is present, else the simulated device.
# Usage: tools/demo.sh [demo-scale] ; extra brrr options via BRRR_RUN_OPTS="--json ..."
set -euo pipefail
cd "$(dirname "$0")/.."
echo "demo: installing what the build needs (tools/setup.sh --build; nothing when all is there)" >&2
bash tools/setup.sh --build
echo "demo: configuring (cmake --preset default)" >&2
cmake --preset default >/dev/null
# Only what the demo runs: brrr, the shim (and its Python hook), the simulated device, the demo
# workload; tools/test.sh builds the rest. ninja shows its [n/N] progress.
echo "demo: building brrr, libbrrr.so, the simulated device and the demo workload" >&2
cmake --build --preset default -j "$(nproc)" --target brrr brrr_shim brrr_sitecustomize \
  simcuda_runtime simcuda_driver simcuda_cupti demo_workload
build=build/default
demo=$build/demo/demo_workload

if [[ -e /dev/nvidia0 ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "demo: profiling on the real GPU: $(nvidia-smi -L | head -1)" >&2
else
  echo "demo: no GPU found; profiling on the simulated device (tools/simcuda)" >&2
  export LD_LIBRARY_PATH="$PWD/$build/simcuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # Simulated durations that make each phase of the demo behave as it would on a GPU.
  export BRRR_SIM_KERNELS="${BRRR_SIM_KERNELS:-tiny_add=1000,big_matmul_like=400000}"
fi

if [[ -x $build/lib/brrr ]]; then
  file=$build/demo-report.brrr
  html=build/demo-report.html
  status=0
  rm -f "$file" "$html"
  # shellcheck disable=SC2086
  "$build/lib/brrr" run --output "$file" ${BRRR_RUN_OPTS:-} -- "$demo" "$@" || status=$?
  if [[ -f $file ]] && "$build/lib/brrr" report "$file" --html "$html" 2>/dev/null; then
    echo "demo: the report as a page: $PWD/$html (open it in a browser)" >&2
  fi
  exit "$status"
fi
echo "demo: the brrr collector is not built yet; running the workload unprofiled" >&2
exec "$demo" "$@"
