#!/usr/bin/env bash
# Tests the GPU acceptance tooling on a machine without a GPU: shell syntax (and shellcheck when
# installed), Python byte-compilation, compare.py, overhead.py, python_check.py, labels_check.py
# and job_check.py self-tests, counters_check.py's test (tests/gpu_tools), acceptance.sh's early
# exit when there is no GPU, the nvcc workload compiling for sm_90, and — when a build with the
# simulated device exists — bundle.sh plus acceptance.sh's nvcc check end to end on that device
# and its counters section recording SKIP (no PyTorch there) rather than failing.
#
# Usage: tools/gpu/selftest.sh [BUILD_DIR]   (default: build/default, else build/lead)
# Exit status: 0 when every step that could run passed, 1 otherwise.
#
# Must never: write into the source tree or the build directory (everything goes to a temporary
# directory it removes), or need a GPU.
set -uo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gpu_dir="$repo_root/tools/gpu"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/brrr-gpu-selftest.XXXXXX")" || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
step() { printf '\n--- %s\n' "$1"; }
pass() { echo "PASS: $1"; }
fail() {
  echo "FAIL: $1"
  failed=1
}
skip() { echo "SKIP: $1"; }

step "shell syntax"
for f in "$gpu_dir"/*.sh; do
  if bash -n "$f"; then pass "bash -n $(basename "$f")"; else fail "bash -n $(basename "$f")"; fi
done
if command -v shellcheck >/dev/null; then
  if shellcheck "$gpu_dir"/*.sh; then pass shellcheck; else fail shellcheck; fi
else
  skip "shellcheck is not installed"
fi

step "python"
for f in "$gpu_dir"/*.py "$gpu_dir"/workloads/*.py; do
  if PYTHONPYCACHEPREFIX="$tmp/pycache" python3 -m py_compile "$f"; then
    pass "py_compile ${f#"$gpu_dir"/}"
  else
    fail "py_compile ${f#"$gpu_dir"/}"
  fi
done
for tool in compare.py overhead.py python_check.py labels_check.py job_check.py; do
  if python3 -B "$gpu_dir/$tool" --self-test; then pass "$tool --self-test"; else fail "$tool --self-test"; fi
done
if python3 -B "$repo_root/tests/gpu_tools/counters_check_test.py"; then
  pass "counters_check.py (tests/gpu_tools/counters_check_test.py)"
else
  fail "counters_check.py (tests/gpu_tools/counters_check_test.py)"
fi

step "acceptance.sh without a GPU"
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$tmp/fakebin/nvidia-smi"
chmod +x "$tmp/fakebin/nvidia-smi"
no_gpu_check() { # LABEL PATH
  local start=$SECONDS msg rc
  msg="$(env -u BRRR_ACCEPTANCE_SIMULATED PATH="$2" OUT="$tmp/no-gpu-out" \
    bash "$gpu_dir/acceptance.sh" 2>&1)"
  rc=$?
  if [[ $rc == 2 && "$msg" == *"no NVIDIA GPU found"* && ! -e "$tmp/no-gpu-out" &&
    $((SECONDS - start)) -lt 10 ]]; then
    pass "$1: exit 2, \"$msg\", nothing created"
  else
    fail "$1: exit $rc, output: $msg"
  fi
}
no_gpu_check "nvidia-smi lists no GPU" "$tmp/fakebin:$PATH"
if command -v nvidia-smi >/dev/null; then
  skip "this machine has nvidia-smi: the 'no nvidia-smi' case is not run"
else
  no_gpu_check "no nvidia-smi" "$PATH"
fi

step "nvcc workload (sm_90)"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
if [[ -x "$nvcc" ]]; then
  for variant in static shared; do
    extra=()
    [[ $variant == shared ]] && extra=(-cudart shared)
    if "$nvcc" -arch=sm_90 -O2 "${extra[@]}" -o "$tmp/vector_loop_$variant" \
      "$gpu_dir/workloads/vector_loop.cu"; then
      pass "nvcc -arch=sm_90 ($variant cudart)"
    else
      fail "nvcc -arch=sm_90 ($variant cudart)"
    fi
  done
  # The probes run by host_cost_diag.sh and by hand on a GPU machine.
  if "$nvcc" -arch=sm_90 -O2 -cudart shared -o "$tmp/free_null_probe" \
    "$gpu_dir/workloads/free_null_probe.cu"; then
    pass "nvcc -arch=sm_90 free_null_probe.cu"
  else
    fail "nvcc -arch=sm_90 free_null_probe.cu"
  fi
  if "$gpu_dir/build_cupti_cost.sh" "$tmp/cupti_cost_shared" sm_90 shared >"$tmp/cupti_cost.out" 2>&1; then
    pass "build_cupti_cost.sh (shared cudart)"
  else
    fail "build_cupti_cost.sh (shared cudart): $(tail -n 3 "$tmp/cupti_cost.out")"
  fi
  if "$gpu_dir/build_cupti_cost.sh" "$tmp/attach_probe" sm_90 shared attach_probe \
    >"$tmp/attach_probe.out" 2>&1; then
    pass "build_cupti_cost.sh attach_probe"
  else
    fail "build_cupti_cost.sh attach_probe: $(tail -n 3 "$tmp/attach_probe.out")"
  fi
else
  skip "no nvcc"
fi

step "bundle + acceptance.sh on the simulated device"
build="${1:-}"
if [[ -z "$build" ]]; then
  for candidate in "$repo_root/build/default" "$repo_root/build/lead"; do
    if [[ -x "$candidate/lib/brrr" && -e "$candidate/simcuda/lib/libcudart.so.13" ]]; then
      build="$candidate"
      break
    fi
  done
fi
if [[ -z "$build" || ! -x "$build/lib/brrr" || ! -e "$build/simcuda/lib/libcudart.so.13" ]]; then
  skip "no build with lib/brrr and simcuda/lib (build first, or pass BUILD_DIR)"
else
  echo "build: $build"
  # A large ldconfig cache, as after python3-torch, Chromium and Open MPI are installed: the real
  # cache, then 200000 more entries after it. bundle.sh once died there with exit 141 (awk left at
  # the first match and ldconfig got SIGPIPE under pipefail).
  mkdir -p "$tmp/big-ld-cache"
  real_ldconfig="$(command -v ldconfig || echo /sbin/ldconfig)"
  cat >"$tmp/big-ld-cache/ldconfig" <<LDCONFIG
#!/bin/sh
[ "\$1" = -p ] || exec "$real_ldconfig" "\$@"
"$real_ldconfig" -p
seq 200000 | sed 's|.*|\tlibfiller&.so.1 (libc6,x86-64) => /usr/lib/libfiller&.so.1|'
LDCONFIG
  chmod +x "$tmp/big-ld-cache/ldconfig"
  if PATH="$tmp/big-ld-cache:$PATH" bash "$gpu_dir/bundle.sh" --build "$build" --out "$tmp/bundle"; then
    pass "bundle.sh (with a 200000-entry ldconfig cache)"
    if env -i PATH=/usr/bin:/bin bash -c "cd / && '$tmp/bundle/lib/brrr' --help >/dev/null"; then
      pass "the bundled brrr runs with an empty environment from /"
    else
      fail "the bundled brrr does not run with an empty environment"
    fi
    # The strongest form: a root holding nothing but glibc (libc, libm, ld.so) and the bundle.
    if [[ $EUID == 0 ]] && command -v unshare >/dev/null && command -v chroot >/dev/null; then
      root="$tmp/glibc-only-root"
      mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/proc"
      cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/" &&
        cp -L /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libm.so.6 \
          "$root/lib/x86_64-linux-gnu/" && cp -r "$tmp/bundle/lib" "$root/"
      # A private mount namespace: /proc (for $ORIGIN) is unmounted when it ends.
      if unshare --mount --fork sh -c "mount -t proc proc '$root/proc' &&
          chroot '$root' /lib/brrr --help >/dev/null"; then
        pass "the bundled brrr runs in a root that holds only glibc"
      else
        fail "the bundled brrr does not run in a root that holds only glibc"
      fi
    else
      skip "glibc-only root (needs root, unshare and chroot)"
    fi
    if BRRR_ACCEPTANCE_SIMULATED="$build/simcuda/lib" bash "$gpu_dir/acceptance.sh" \
      --bundle "$tmp/bundle" --out "$tmp/acceptance" --only nvcc,counters >"$tmp/acceptance.out" 2>&1 &&
      grep -q $'^nvcc-shared-cudart\tPASS' "$tmp/acceptance/results.tsv"; then
      pass "acceptance.sh --only nvcc,counters on the simulated device, nvcc: $(grep $'^nvcc-shared-cudart\t' \
        "$tmp/acceptance/results.tsv" | cut -f3)"
    else
      tail -n 30 "$tmp/acceptance.out"
      fail "acceptance.sh --only nvcc,counters on the simulated device"
    fi
    # Its counters section: five rows, each SKIP with the reason (no torch on the simulated device).
    counters_rows="$(grep -c $'^counters-[a-z-]*\tSKIP\tsimulated device: no PyTorch runs$' \
      "$tmp/acceptance/results.tsv")"
    if [[ "$counters_rows" == 5 ]] && ! grep -q $'^counters-[a-z-]*\t\(PASS\|FAIL\)' \
      "$tmp/acceptance/results.tsv"; then
      pass "acceptance.sh counters section on the simulated device: 5 checks SKIP with the reason"
    else
      grep '^counters-' "$tmp/acceptance/results.tsv"
      fail "acceptance.sh counters section on the simulated device ($counters_rows SKIP rows of 5)"
    fi
    # host_cost_diag.sh end to end on the simulated device (its cupti_cost finds the simulated
    # runtime first): one round of three modes, each with its measured ns and brrr's estimate.
    if LD_LIBRARY_PATH="$build/simcuda/lib" MODES="alone host-only sample-10-detach" \
      bash "$gpu_dir/host_cost_diag.sh" "$build/lib/brrr" "$tmp/host-cost" 1 >"$tmp/host-cost.out" 2>&1 &&
      [[ "$(grep -c "BRRR'S COST\|of wall" "$tmp/host-cost/host-cost.txt")" == 2 ]] &&
      grep -q '^alone ' "$tmp/host-cost/host-cost.txt"; then
      pass "host_cost_diag.sh on the simulated device: 3 modes, 2 estimates"
    else
      tail -n 20 "$tmp/host-cost.out"
      fail "host_cost_diag.sh on the simulated device"
    fi
    # detach_wait_check.sh end to end on the simulated device (its cupti_cost's Spin kernels run
    # 20 us there): four runs, each with its line of the report's figures.
    if LD_LIBRARY_PATH="$build/simcuda/lib" BRRR_SIM_KERNELS=Spin=20000,Empty=500 PIN="" \
      BRRR="$build/lib/brrr" LAUNCHES=20000 FAST_LAUNCHES=50000 WINDOW_MS=10 ROUNDS=1 \
      bash "$gpu_dir/detach_wait_check.sh" "$tmp/detach-wait" >"$tmp/detach-wait.out" 2>&1 &&
      [[ "$(grep -cE ' ns/launch  windows [0-9]* detaches .* untimed [0-9]* kernels-with-records .* cost [0-9.]+% hidden [0-9.]+ ms$' \
        "$tmp/detach-wait/detach-wait.txt")" == 4 ]]; then
      pass "detach_wait_check.sh on the simulated device: 4 runs, each with the report's figures"
    else
      tail -n 20 "$tmp/detach-wait.out"
      fail "detach_wait_check.sh on the simulated device"
    fi
    # attach_probe's concurrent mode on the simulated device: two loops, each with CUPTI attached
    # and detached twice by another thread (four step lines) and then alone.
    if [[ -x "$tmp/attach_probe" ]]; then
      if LD_LIBRARY_PATH="$build/simcuda/lib" BRRR_SIM_KERNELS=Spin=20000 \
        "$tmp/attach_probe" concurrent >"$tmp/attach-concurrent.txt" 2>&1 &&
        [[ "$(grep -cE '^concurrent kernel_us [0-9]+ step (attach|detach) took_ms [0-9.]+ launches_during [0-9]+ longest_launch_ms [0-9.]+ blocked_ms [0-9.]+$' \
          "$tmp/attach-concurrent.txt")" == 8 &&
        "$(grep -cE '^concurrent kernel_us [0-9]+ cupti [01] launches [0-9]+ loop_ms' \
          "$tmp/attach-concurrent.txt")" == 4 ]]; then
        pass "attach_probe concurrent on the simulated device: 4 loops, 8 steps"
      else
        tail -n 20 "$tmp/attach-concurrent.txt"
        fail "attach_probe concurrent on the simulated device"
      fi
    fi
    # join_ids_probe.sh's probe on the simulated device, which must keep what the H100 showed:
    # the driver callback inside a runtime launch or copy carries its kernel's or copy's id.
    if LD_LIBRARY_PATH="$build/simcuda/lib" COST_MODES="none" \
      bash "$gpu_dir/join_ids_probe.sh" sm_90 "$tmp/join-ids" 1 >"$tmp/join-ids.out" 2>&1 &&
      [[ "$(grep -c "driver callback ids 2000, = the last one 2000" "$tmp/join-ids/join-ids.txt")" == 8 ]]; then
      pass "join_ids_probe.sh on the simulated device: the driver callback's id is the work's, 8 sets"
    else
      tail -n 20 "$tmp/join-ids.out"
      fail "join_ids_probe.sh on the simulated device"
    fi
    # The counters section's own plumbing, past the torch check: a fake nvidia-smi and a no-op
    # stand-in for torch (nothing runs on a device, so brrr records no device work). Expected: the
    # workloads run under brrr run --counters, counters_check.py's verdicts become result rows
    # (the regimes FAIL: no device records, so no device regime; the counters SKIP with the reason
    # the report gives in kernels.counters: no CUDA driver or device in reach), and
    # the cost runs give a MEASURED row from the workloads' steps_per_s.
    mkdir -p "$tmp/fake/bin" "$tmp/fake/py/torch"
    cat >"$tmp/fake/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  *-L*) echo "GPU 0: Fake GPU (UUID: GPU-fake)" ;;
  *noheader*) echo "9.0" ;;
  *) echo "name, compute_cap"; echo "Fake GPU, 9.0" ;;
esac
SMI
    chmod +x "$tmp/fake/bin/nvidia-smi"
    cat >"$tmp/fake/py/torch/__init__.py" <<'TORCH'
# No-op stand-in for torch (tools/gpu/selftest.sh): every tensor op returns the tensor itself.
__version__ = "0.0-selftest"
class version: cuda = "none"
bfloat16 = float16 = float32 = "dtype"
class _T:
    def __getattr__(self, name): return lambda *a, **k: self
    def item(self): return 1.0
    def __truediv__(self, o): return self
    __mul__ = __rmul__ = __add__ = __radd__ = __truediv__
class cuda:
    is_available = staticmethod(lambda: True)
    manual_seed_all = synchronize = staticmethod(lambda *a: None)
def manual_seed(s): pass
def device(d): return d
def _make(*a, **k): return _T()
randn = rand = zeros = empty = empty_like = matmul = mul = addcmul = _make
TORCH
    env -u BRRR_ACCEPTANCE_SIMULATED PATH="$tmp/fake/bin:$PATH" PYTHONPATH="$tmp/fake/py" \
      bash "$gpu_dir/acceptance.sh" --bundle "$tmp/bundle" --out "$tmp/fake-acceptance" \
      --only counters --counters-runs 1 >"$tmp/fake-acceptance.out" 2>&1
    fake_rc=$?
    got="$(grep '^counters-' "$tmp/fake-acceptance/results.tsv" 2>/dev/null | cut -f1,2 | tr '\t\n' ': ')"
    want="counters-matmul-regime:FAIL counters-matmul-counters:SKIP counters-pointwise-regime:FAIL counters-pointwise-counters:SKIP counters-cost:MEASURED "
    if [[ "$fake_rc" == 1 && "$got" == "$want" ]] &&
      grep -q $'^counters-matmul-counters\tSKIP\thardware counters not used: not supported' "$tmp/fake-acceptance/results.tsv" &&
      grep -q $'^counters-cost\tMEASURED\tpointwise loop, median of 1: --counters [0-9.]* vs [0-9.]* steps/s' \
        "$tmp/fake-acceptance/results.tsv"; then
      pass "acceptance.sh --only counters with a no-op torch: verdicts recorded, cost measured, exit 1"
    else
      tail -n 30 "$tmp/fake-acceptance.out"
      fail "acceptance.sh --only counters with a no-op torch: exit $fake_rc, rows: $got"
    fi
  else
    fail "bundle.sh"
  fi
fi

echo
if ((failed)); then echo "selftest: FAILED"; else echo "selftest: passed"; fi
exit "$failed"
