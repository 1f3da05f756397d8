#!/usr/bin/env bash
# The one command that runs every test: installs what is missing, builds the default and the
# ASan+UBSan presets, and runs ctest on both. Usage: tools/test.sh [--quick]  (--quick: default only)
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
done
