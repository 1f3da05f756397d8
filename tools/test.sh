#!/usr/bin/env bash
# The one command that runs every test: installs what is missing, builds the default and the
# ASan+UBSan presets, runs ctest on both, and the GPU tooling's self-test on the default build. Usage: tools/test.sh [--quick]  (--quick: default only)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
jobs=$(nproc)
presets=(default asan)
[[ "${1:-}" == "--quick" ]] && presets=(default)
for preset in "${presets[@]}"; do
  echo "=== ${preset}: configure and build"
  start=$(date +%s)
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "=== ${preset}: built in $(( $(date +%s) - start ))s; testing"
  start=$(date +%s)
  ctest --preset "$preset" -j "$jobs"
  echo "=== ${preset}: tested in $(( $(date +%s) - start ))s"
  if [[ "$preset" == default ]]; then
    # The path to a GPU must not rot unseen: bundle.sh and acceptance.sh, checked without a GPU.
    echo "=== GPU tooling self-test (tools/gpu/selftest.sh, no GPU needed)"
    bash tools/gpu/selftest.sh "build/$preset"
  fi
done
