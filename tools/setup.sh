#!/usr/bin/env bash
# Installs the Debian packages brrr builds and tests with. Idempotent: when everything is present it
# does nothing (no apt-get at all). CUDA is not a Debian package here: it must already be installed
# (found at $CUDAToolkit_ROOT, $CUDA_PATH or /usr/local/cuda); this script only checks for it.
# Usage: tools/setup.sh [--build]   --build: only what building brrr needs (tools/demo.sh), not
#                                    what only the tests use (Chromium, Go, Open MPI, PyTorch, ...)
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build pkg-config
  libabsl-dev        # collector and viewer; header-only in the shim
  zlib1g-dev         # CRC-32 of .brrr sections (viewer/format/crc32.cc)
  nlohmann-json3-dev # brrr.report/1 and Chrome trace JSON (viewer/format/, viewer/chrome_trace.cc)
  libunwind-dev      # dlopened (never linked) by the shim when asked for
  libdw-dev libelf-dev  # the collector's symbolizer (ELF symbols, DWARF file:line)
  libprotobuf-dev protobuf-compiler  # the pprof export (viewer/pprof/profile.proto)
  libgtest-dev libgmock-dev googletest libbenchmark-dev  # configure finds them (small)
)
test_packages=(
  clang libclang-rt-dev  # libFuzzer targets
  binutils           # readelf/nm for link-dependency checks
  python3-dev        # the Python end-to-end tests build a CPython extension against it
  python3-torch      # real PyTorch (1.13, CPU): record_function labels as phases (tests/python)
  openmpi-bin        # job_e2e_test runs 4 ranks under mpirun (skipped when missing)
  chromium           # the HTML report's tests open it headless (skipped when missing)
  shellcheck         # tools/gpu/selftest.sh lints the GPU scripts
  prometheus         # promtool checks the /metrics exposition (always_on_e2e_test)
  golang-go          # go tool pprof reads the pprof export (views_e2e_test)
)
packages=("${build_packages[@]}")
[[ ${1:-} == --build ]] || packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} Debian packages (and what they need): ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  echo "setup: apt-get update"
  "${sudo_cmd[@]}" apt-get update -qq
  # One line per package unpacked and set up, with a count, instead of minutes of silence.
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" |
    awk '/^(Unpacking|Setting up) /{ n++; printf "setup: [%d] %s %s\n", n, $1 == "Unpacking" ? "unpacking" : "setting up", $2; fflush() }'
fi

nvcc=""
for root in "${CUDAToolkit_ROOT:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  if [[ -n "$root" && -x "$root/bin/nvcc" ]]; then nvcc="$root/bin/nvcc"; break; fi
done
if [[ -z "$nvcc" ]]; then
  echo "setup: no CUDA toolkit found (looked in \$CUDAToolkit_ROOT, \$CUDA_PATH, /usr/local/cuda)." >&2
  echo "setup: install CUDA 12.x or 13.x; it is not available from Debian's archive here." >&2
  exit 1
fi
