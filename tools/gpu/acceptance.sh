#!/usr/bin/env bash
# brrr's GPU acceptance run (issue 4): on a machine with an NVIDIA GPU, CUDA 13 and PyTorch, runs
# real workloads under a prebuilt brrr bundle (tools/gpu/bundle.sh) and checks each report:
#   nvcc program, static cudart (nvcc's default) and -cudart shared: exact kernel count, exit code
#   passthrough, verdict, host_only false;
#   PyTorch: matmul/elementwise/.item() loop, torch.compile'd model, CUDA-graph replay: brrr's
#   kernel count and device times next to torch.profiler's on an identical run;
#   overhead of a launch-bound loop: alone vs brrr vs torch.profiler (target brrr <= +3 %);
#   coexistence: torch.profiler active inside a brrr run -> brrr host-only with a reason, the app
#   unaffected, torch.profiler's trace complete;
#   python (issue 8): a PyTorch loop with .item(), .cpu() and print(tensor) on marked lines and
#   torch.cuda.nvtx phases -> the Python line of each stall, the phases with exact calls, launch
#   sites; the launch-bound loop with launch sampling off / default / every launch (loop medians);
#   counters (issue 11): a matmul-heavy and a pointwise-heavy loop under `brrr run --counters` ->
#   device regime compute / bandwidth, on hardware counters when the GPU allows them (refused:
#   SKIP with the reason; permitted but no PM sample joined a kernel: FAIL), the run-wide and top-3
#   per-kernel SM/DRAM figures, the clock basis and sample counts (counters_check.py); the
#   pointwise loop's steps/s under brrr without and with --counters, interleaved (medians, ratio);
#   labels (issue 25): a CUDA loop annotated only with record_function and prof.step() -> the
#   labels as phases with exact calls and device time, ProfilerStep#N as steps (labels_check.py);
#   the same with torch.profiler recording CUDA activity -> brrr says who has CUPTI, labels still
#   come; the cost per label (alone vs under brrr, interleaved, medians);
#   job (issue 26): `brrr run -- torchrun --nproc_per_node 2` of workloads/job_loop.py, both ranks
#   on the one GPU, gloo (NCCL refuses two ranks on one GPU) -> one job report with a row per rank,
#   each exited 0, with its kernels (the ops it counted, give or take its 2 others) on device 0
#   (job_check.py).
#
# Usage (from the repository root):
#   bash tools/gpu/acceptance.sh [--bundle DIR] [--out DIR] [--runs N] [--only LIST] [--keep-traces]
#     --bundle DIR   the bundle (default build/gpu-bundle)
#     --out DIR      where everything is written (default $OUT if set, else build/gpu-acceptance)
#     --runs N       overhead runs per mode (default 5)
#     --counters-runs N  runs per mode of the counters cost (default 3)
#     --only LIST    comma-separated sections: nvcc,torch,overhead,coexist,python,counters,cost,
#                    labels,job
#                    (default all)
#     --keep-traces  keep torch.profiler's Chrome traces in the output (they can be large)
#   Environment: PYTHON (default python3); BRRR_ACCEPTANCE_APP_LD_PATH: the LD_LIBRARY_PATH the
#   nvcc programs get (default: the toolkit's CUPTI and cudart directories);
#   BRRR_ACCEPTANCE_SIMULATED=DIR: test this script without a GPU on the simulated device
#   (DIR = <build>/simcuda/lib): only the -cudart shared program runs, without --verify; the
#   PyTorch sections (torch, overhead, coexist, python, counters, labels, job) record SKIP.
# Exit status: 0 all checks passed (the overhead target and the counters cost are measurements
# and do not count, nor do SKIPs such as counters the driver refused),
# 1 some check failed, 2 no GPU / unusable set-up (nothing is built when there is no GPU).
#
# Must never: build anything or touch the bundle before it knows there is a GPU, set
# LD_LIBRARY_PATH for brrr's own libraries (the bundle's RPATH handles them), stop at the first
# failing check (every check runs and lands in the summary), or write outside --out and a
# temporary directory it removes.
set -uo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gpu_dir="$repo_root/tools/gpu"
bundle="$repo_root/build/gpu-bundle"
out="${OUT:-$repo_root/build/gpu-acceptance}"
runs=5
counters_runs=3
sections="nvcc,torch,overhead,coexist,python,counters,cost,labels,job"
only="$sections"
keep_traces=no
run_timeout=300
py="${PYTHON:-python3}"

usage_error() {
  echo "acceptance.sh: $*" >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bundle) bundle="${2:?--bundle needs a directory}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --counters-runs) counters_runs="${2:?--counters-runs needs a number}"; shift 2 ;;
    --only) only="${2:?--only needs a list}"; shift 2 ;;
    --keep-traces) keep_traces=yes; shift ;;
    -h | --help) sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument: $1 (see --help)" ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || usage_error "--runs must be a positive number"
[[ "$counters_runs" =~ ^[1-9][0-9]*$ ]] || usage_error "--counters-runs must be a positive number"
for section in ${only//,/ }; do
  [[ ",$sections," == *",$section,"* ]] || usage_error "unknown section: $section"
done
wants() { [[ ",$only," == *",$1,"* ]]; }

# --- 0. A GPU, before anything else ---------------------------------------------------------------
simulated="${BRRR_ACCEPTANCE_SIMULATED:-}"
gpu_list=""
if [[ -n "$simulated" ]]; then
  [[ -e "$simulated/libcudart.so.13" ]] ||
    usage_error "BRRR_ACCEPTANCE_SIMULATED=$simulated has no libcudart.so.13"
  simulated="$(cd "$simulated" && pwd)"
  gpu_list="GPU 0: the simulated device ($simulated)"
elif command -v nvidia-smi >/dev/null 2>&1; then
  gpu_list="$(timeout 60 nvidia-smi -L 2>/dev/null)"
fi
if ! grep -q '^GPU ' <<<"$gpu_list"; then
  echo "acceptance.sh: no NVIDIA GPU found (nvidia-smi is missing or lists no GPU); nothing was built or run" >&2
  exit 2
fi

[[ "$bundle" = /* ]] || bundle="$PWD/$bundle"
[[ "$out" = /* ]] || out="$PWD/$out"
mkdir -p "$out" || usage_error "cannot create $out"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/brrr-acceptance.XXXXXX")" || usage_error "no temporary dir"
trap 'rm -rf "$scratch"' EXIT
exec > >(tee "$out/acceptance.log") 2>&1
tee_pid=$!
# At exit: let tee write its last lines before the caller reads the log (bash >= 5.1 waits on it).
trap 'exec >&- 2>&-; wait "$tee_pid" 2>/dev/null; rm -rf "$scratch"' EXIT
results="$out/results.tsv"
comparisons="$out/comparisons.tsv"
: >"$results"
: >"$comparisons"
started=$SECONDS

section() { printf '\n=== %s (t=%ds)\n' "$1" $((SECONDS - started)); }
record() { # NAME STATUS DETAIL   (STATUS: PASS, FAIL, SKIP, MEASURED or MEASURED-PASS/-FAIL)
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"
  printf -- '--> %-34s %-14s %s\n' "$1" "$2" "$3"
}
json_get() { # FILE PYTHON-EXPR-ON-d: prints the value or nothing
  "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" \
    2>/dev/null
}

section "machine"
echo "$gpu_list"
compute_cap=""
if [[ -z "$simulated" ]]; then
  timeout 60 nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
  compute_cap="$(timeout 60 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
    sed -n 1p | tr -d ' .')" # sed reads all: no SIGPIPE for nvidia-smi on a multi-GPU machine
fi
[[ "$compute_cap" =~ ^[0-9]+$ ]] || compute_cap=90
echo "kernel: $(uname -r); glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null)"

torch_ok=no
if [[ -n "$simulated" ]]; then
  record "torch.cuda.is_available" SKIP "simulated device: no PyTorch runs"
elif torch_info="$("$py" -c 'import sys, torch
print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), cuda available: {torch.cuda.is_available()}")
sys.exit(0 if torch.cuda.is_available() else 1)' 2>&1)"; then
  torch_ok=yes
  record "torch.cuda.is_available" PASS "$torch_info"
else
  record "torch.cuda.is_available" FAIL "$(tail -n 1 <<<"$torch_info")"
fi

# --- 1. The bundle -------------------------------------------------------------------------------
section "bundle"
brrr="$bundle/lib/brrr"
if [[ ! -f "$brrr" || ! -f "$bundle/lib/libbrrr.so" ]]; then
  record bundle FAIL "no $brrr: run tools/gpu/bundle.sh on the build machine and carry build/gpu-bundle"
  exit 2
fi
sed -n '1,8p' "$bundle/BUNDLE.txt" 2>/dev/null
if [[ ! -x "$brrr" ]]; then # carried without its mode bits: use an executable copy
  cp -r "$bundle" "$scratch/bundle" && chmod +x "$scratch/bundle/lib/brrr" && bundle="$scratch/bundle"
  brrr="$bundle/lib/brrr"
fi
brrr_runs() { (cd / && env -i PATH=/usr/bin:/bin "$1" --help >/dev/null 2>"$scratch/brrr-help.err"); }
if brrr_runs "$brrr"; then
  record bundle PASS "brrr runs with an empty environment"
else
  cat "$scratch/brrr-help.err"
  # Our libstdc++ may need a newer glibc than this machine has: try the machine's own.
  cp -r "$bundle" "$scratch/bundle-system-cxx" &&
    rm -f "$scratch/bundle-system-cxx"/lib/deps/libstdc++.so.* "$scratch/bundle-system-cxx"/lib/deps/libgcc_s.so.*
  if brrr_runs "$scratch/bundle-system-cxx/lib/brrr"; then
    bundle="$scratch/bundle-system-cxx"
    brrr="$bundle/lib/brrr"
    record bundle PASS "brrr runs with this machine's libstdc++ (the bundled one needs a newer glibc)"
  else
    cat "$scratch/brrr-help.err"
    record bundle FAIL "brrr does not start here (see above)"
    exit 2
  fi
fi

# run_under_brrr TAG CMD...: brrr run --quiet (plus the flags in brrr_flags), then the JSON
# report. Sets app_rc. Writes $out/TAG.{stdout,stderr,brrr,report.json}.
brrr_flags=()
run_under_brrr() {
  local tag="$1"
  shift
  timeout "$run_timeout" "$brrr" run --quiet "${brrr_flags[@]}" --output "$out/$tag.brrr" -- "$@" \
    >"$out/$tag.stdout" 2>"$out/$tag.stderr"
  app_rc=$?
  if ! "$brrr" report "$out/$tag.brrr" --json >"$out/$tag.report.json" 2>>"$out/$tag.stderr"; then
    rm -f "$out/$tag.report.json"
  fi
  echo "[$tag] exit $app_rc; stderr tail:"
  tail -n 5 "$out/$tag.stderr" | sed 's/^/    /'
}
# check_workload TAG SCRIPT ARGS...: after run_under_brrr TAG, one result row named TAG from
# `SCRIPT check TAG's-report ARGS...` (python_check.py, labels_check.py, job_check.py: ok/FAIL
# lines); FAIL when the workload failed or left no report. Prints the script's lines.
check_workload() {
  local tag="$1" script="$2" lines=""
  shift 2
  if [[ "$app_rc" != 0 ]]; then
    record "$tag" FAIL "the workload exited $app_rc under brrr (see $tag.stderr)"
  elif [[ ! -f "$out/$tag.report.json" ]]; then
    record "$tag" FAIL "no report (see $tag.stderr)"
  elif lines="$("$py" "$gpu_dir/$script" check "$out/$tag.report.json" "$@" 2>&1)"; then
    record "$tag" PASS "$(grep -c '^ok' <<<"$lines") checks"
  else
    record "$tag" FAIL "$(grep '^FAIL' <<<"$lines" | tr '\n' ';')"
  fi
  echo "$lines"
}
# check_report NAME TAG COMPARE-CHECK-ARGS...: compare.py check on TAG's report -> one result row.
check_report() {
  local name="$1" tag="$2"
  shift 2
  if [[ ! -f "$out/$tag.report.json" ]]; then
    record "$name" FAIL "no report (brrr failed; see $tag.stderr)"
    return
  fi
  local lines
  lines="$("$py" "$gpu_dir/compare.py" check "$out/$tag.report.json" "$@" 2>&1)"
  local rc=$?
  awk '{ print "    " $0 }' <<<"$lines"
  if ((rc == 0)); then
    record "$name" PASS "$(tr '\n' ';' <<<"$lines" | sed 's/ok   //g; s/;$//; s/;/; /g')"
  else
    record "$name" FAIL "$(grep -v '^ok' <<<"$lines" | tr '\n' ';' | sed 's/FAIL //g; s/;$//; s/;/; /g')"
  fi
}

# --- 2. nvcc programs ------------------------------------------------------------------------------
if wants nvcc; then
  section "nvcc programs (sm_$compute_cap)"
  nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  cuda_home="${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$nvcc")")")}"
  app_ld_path="${simulated:-${BRRR_ACCEPTANCE_APP_LD_PATH:-}}" # an override, for odd toolkits
  [[ -n "$app_ld_path" ]] || for d in "$cuda_home/extras/CUPTI/lib64" "$cuda_home/lib64" "$cuda_home/targets/x86_64-linux/lib"; do
    if [[ -e "$d/libcupti.so.13" || -e "$d/libcudart.so.13" ]]; then app_ld_path+="${app_ld_path:+:}$d"; fi
  done
  echo "nvcc: $nvcc; the apps get LD_LIBRARY_PATH=${app_ld_path:-(unchanged)} (CUPTI, cudart)"
  mkdir -p "$out/bin"
  nvcc_flags=(-arch="sm_$compute_cap" -O2 -lineinfo -Xcompiler -fno-omit-frame-pointer)
  verify=(--verify)
  [[ -n "$simulated" ]] && verify=() # the simulated device runs no kernel code
  for variant in static shared; do
    name="nvcc-$variant-cudart"
    if [[ -n "$simulated" && "$variant" == static ]]; then
      record "$name" SKIP "a static cudart needs the real driver"
      continue
    fi
    exe="$out/bin/vector_loop_$variant"
    extra=()
    [[ "$variant" == shared ]] && extra=(-cudart shared)
    if ! [[ -x "$nvcc" ]] ||
      ! "$nvcc" "${nvcc_flags[@]}" "${extra[@]}" -o "$exe" "$gpu_dir/workloads/vector_loop.cu" \
        >"$out/$name.build.log" 2>&1; then
      cat "$out/$name.build.log" 2>/dev/null
      record "$name" FAIL "nvcc build failed (see $name.build.log)"
      continue
    fi
    app_env=()
    [[ -n "$app_ld_path" ]] && app_env=(env "LD_LIBRARY_PATH=$app_ld_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    run_under_brrr "$name" "${app_env[@]}" "$exe" --iters 2000 --copy-every 10 --exit-code 3 "${verify[@]}"
    expected="$(sed -n 's/^kernel_launches=\([0-9]*\)$/\1/p' "$out/$name.stdout")"
    if [[ -z "$expected" ]]; then
      record "$name" FAIL "the program did not finish (exit $app_rc; see $name.stderr)"
      continue
    fi
    [[ "$app_rc" == 3 ]] || record "$name-exit-passthrough" FAIL "brrr exited $app_rc, the app 3"
    check_report "$name" "$name" --kernels "$expected" --exit-code 3 --host-only no
  done
fi

# --- 3. PyTorch workloads vs torch.profiler ---------------------------------------------------------
# profiled_run TAG WORKLOAD ARGS...: the same workload under torch.profiler (no brrr).
profiled_run() {
  local tag="$1" workload="$2"
  shift 2
  timeout "$run_timeout" "$py" "$gpu_dir/workloads/$workload" "$@" \
    --torch-profiler "$out/$tag.profiler.json" --trace "$scratch/$tag.trace.json" \
    --result "$out/$tag.profiler-result.json" >"$out/$tag.profiler.stdout" 2>"$out/$tag.profiler.stderr"
  local rc=$?
  [[ "$keep_traces" == yes && -f "$scratch/$tag.trace.json" ]] && cp "$scratch/$tag.trace.json" "$out/"
  echo "[$tag under torch.profiler] exit $rc: $(tail -n 1 "$out/$tag.profiler.stdout" 2>/dev/null)"
  return $rc
}

torch_workloads=("mixed:mixed_loop.py" "compile:compiled_model.py" "cuda-graph:graph_replay.py")
if wants torch; then
  section "PyTorch workloads: brrr vs torch.profiler"
  for entry in "${torch_workloads[@]}"; do
    name="${entry%%:*}"
    workload="${entry#*:}"
    if [[ "$torch_ok" != yes ]]; then
      record "torch-$name" SKIP "no usable torch"
      continue
    fi
    if [[ "$name" == compile ]]; then
      # Both compared runs must do the same work: TorchInductor caches what it compiled and
      # autotuned (on the H200 the first run's autotuning launched 624 kernels, Triton's
      # benchmark and its L2-clearing fills, that the second, cached run never made). One run
      # alone fills a cache of this acceptance's own; the two compared runs then both hit it.
      export TORCHINDUCTOR_CACHE_DIR="$scratch/inductor-cache"
      timeout "$run_timeout" "$py" "$gpu_dir/workloads/$workload" >/dev/null 2>&1 ||
        echo "[torch-compile] the cache-warming run failed (the comparison may differ)"
    fi
    run_under_brrr "torch-$name" "$py" "$gpu_dir/workloads/$workload" \
      --result "$out/torch-$name.brrr-result.json"
    if [[ "$app_rc" != 0 ]]; then
      record "torch-$name" FAIL "the workload exited $app_rc under brrr (see torch-$name.stderr)"
      continue
    fi
    check_report "torch-$name" "torch-$name" --exit-code 0 --host-only no --min-kernels 1
    if ! profiled_run "torch-$name" "$workload"; then
      record "torch-$name-vs-profiler" FAIL "the torch.profiler run failed (see torch-$name.profiler.stderr)"
      continue
    fi
    if lines="$("$py" "$gpu_dir/compare.py" compare --name "$name" "$out/torch-$name.report.json" \
      "$out/torch-$name.profiler.json" --append-tsv "$comparisons" 2>&1)"; then
      record "torch-$name-vs-profiler" PASS "kernel count within 2 %, kernel time within 10 %"
    else
      record "torch-$name-vs-profiler" FAIL "$(grep -c FAIL <<<"$lines") metric(s) out of tolerance"
    fi
    echo "$lines"
  done
fi

# --- 4. Overhead -----------------------------------------------------------------------------------
if wants overhead; then
  section "overhead: launch-bound loop, $runs runs per mode, interleaved"
  timings="$out/overhead-timings.tsv"
  : >"$timings"
  if [[ "$torch_ok" != yes ]]; then
    record overhead SKIP "no usable torch"
  else
    tiny="$gpu_dir/workloads/tiny_ops.py"
    for ((i = 1; i <= runs; i++)); do
      for mode in alone brrr torch.profiler; do
        result="$scratch/overhead-$mode-$i.json"
        rm -f "$result"
        t0=$(date +%s%N)
        case "$mode" in
          alone) timeout "$run_timeout" "$py" "$tiny" --result "$result" >/dev/null 2>"$scratch/err" ;;
          brrr) timeout "$run_timeout" "$brrr" run --quiet --output "$scratch/overhead.brrr" -- \
            "$py" "$tiny" --result "$result" >/dev/null 2>"$scratch/err" ;;
          torch.profiler) timeout "$run_timeout" "$py" "$tiny" --result "$result" \
            --torch-profiler "$scratch/overhead-prof.json" --trace "$scratch/overhead-trace.json" \
            >/dev/null 2>"$scratch/err" ;;
        esac
        rc=$?
        t1=$(date +%s%N)
        wall_ns=$((t1 - t0))
        loop_s="$(json_get "$result" 'd["loop_s"]')"
        if [[ "$rc" != 0 || -z "$loop_s" ]]; then
          echo "overhead run $i ($mode) failed with exit $rc:"
          tail -n 5 "$scratch/err"
          printf '%s\t%d\t-\t-\n' "$mode" "$i" >>"$timings"
        else
          printf '%s\t%d\t%s\t%d.%09d\n' "$mode" "$i" "$loop_s" $((wall_ns / 1000000000)) \
            $((wall_ns % 1000000000)) >>"$timings"
        fi
      done
      echo "round $i/$runs done"
    done
    "$py" "$gpu_dir/overhead.py" "$timings" | tee "$out/overhead.txt"
    verdict_line="$(grep '^brrr overhead' "$out/overhead.txt")"
    case "$verdict_line" in
      *": PASS") record overhead MEASURED-PASS "${verdict_line#brrr overhead on the loop: }" ;;
      *": FAIL") record overhead MEASURED-FAIL "${verdict_line#brrr overhead on the loop: }" ;;
      *) record overhead FAIL "not measurable: ${verdict_line:-overhead.py failed}" ;;
    esac
  fi
fi

# --- 5. Coexistence with torch.profiler ---------------------------------------------------------
if wants coexist; then
  section "coexistence: torch.profiler inside a brrr run"
  # The reference: the same workload under torch.profiler alone (made above, or now).
  if [[ "$torch_ok" == yes && ! -f "$out/torch-mixed.profiler-result.json" ]]; then
    profiled_run torch-mixed mixed_loop.py || true
  fi
  ref_kernels="$(json_get "$out/torch-mixed.profiler.json" 'd["kernels"]')"
  ref_checksum="$(json_get "$out/torch-mixed.profiler-result.json" 'd["checksum"]')"
  for start in early late; do
    name="coexist-$start"
    if [[ "$torch_ok" != yes ]]; then
      record "$name" SKIP "no usable torch"
      continue
    fi
    run_under_brrr "$name" "$py" "$gpu_dir/workloads/mixed_loop.py" --profiler-start "$start" \
      --torch-profiler "$out/$name.profiler.json" --trace "$scratch/$name.trace.json" \
      --result "$out/$name.result.json"
    [[ "$keep_traces" == yes && -f "$scratch/$name.trace.json" ]] && cp "$scratch/$name.trace.json" "$out/"
    if [[ "$app_rc" != 0 ]]; then
      record "$name-app" FAIL "the app exited $app_rc under brrr + torch.profiler"
    else
      checksum="$(json_get "$out/$name.result.json" 'd["checksum"]')"
      if [[ -n "$ref_checksum" && "$checksum" == "$ref_checksum" ]]; then
        record "$name-app" PASS "exit 0, same checksum as under torch.profiler alone"
      else
        record "$name-app" FAIL "exit 0 but checksum ${checksum:-?} != ${ref_checksum:-?} (torch.profiler alone)"
      fi
    fi
    check_report "$name-brrr" "$name" --exit-code 0 --host-only yes
    kernels="$(json_get "$out/$name.profiler.json" 'd["kernels"]')"
    if [[ -z "$kernels" || "$kernels" == 0 ]]; then
      record "$name-torch-trace" FAIL "torch.profiler's trace has ${kernels:-no} kernel events"
    elif [[ "$start" == early && -n "$ref_kernels" ]] &&
      ! "$py" -c "import sys; sys.exit(abs($kernels - $ref_kernels) > 0.02 * $ref_kernels)"; then
      record "$name-torch-trace" FAIL "$kernels kernel events, $ref_kernels without brrr"
    else
      ref_note="" # a late start sees only part of the run: nothing to compare with
      [[ "$start" == early && -n "$ref_kernels" ]] && ref_note=" ($ref_kernels without brrr)"
      record "$name-torch-trace" PASS "$kernels kernel events$ref_note"
    fi
  done
fi

# --- 6. Python lines, NVTX phases, launch sampling (issue 8) -----------------------------------
if wants python; then
  section "python: stall lines, NVTX phases, launch sites"
  if [[ "$torch_ok" != yes ]]; then
    record python-lines SKIP "no usable torch"
  else
    py_steps=40
    run_under_brrr python-lines "$py" "$gpu_dir/workloads/python_lines.py" --iters "$py_steps" \
      --warmup 0 --result "$out/python-lines.result.json"
    check_workload python-lines python_check.py --script "$gpu_dir/workloads/python_lines.py" \
      --steps "$py_steps"
    if [[ "$app_rc" == 0 ]]; then
      "$brrr" report "$out/python-lines.brrr" >"$out/python-lines.report.txt" 2>&1
      sed -n '/^STALLS/,/^EVENTS/p' "$out/python-lines.report.txt" | head -80
    fi
    # Launch sampling's cost on the launch-bound loop: the loop's seconds, median of $runs runs.
    sampling="$out/launch-sampling.tsv"
    : >"$sampling"
    for ((i = 1; i <= runs; i++)); do
      for n in 0 64 1; do
        result="$scratch/sampling-$n-$i.json"
        BRRR_LAUNCH_SAMPLE=$n timeout "$run_timeout" "$brrr" run --quiet \
          --output "$scratch/sampling.brrr" -- "$py" "$gpu_dir/workloads/tiny_ops.py" \
          --result "$result" >/dev/null 2>"$scratch/err"
        printf '%s\t%s\n' "$n" "$(json_get "$result" 'd["loop_s"]')" >>"$sampling"
      done
    done
    "$py" - "$sampling" <<'PYEOF' | tee "$out/launch-sampling.txt"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    n, s = line.rstrip("\n").split("\t")
    if s:
        runs.setdefault(n, []).append(float(s))
base = statistics.median(runs["0"]) if runs.get("0") else None
for n in ("0", "64", "1"):
    if runs.get(n):
        m = statistics.median(runs[n])
        rel = "" if base is None else " (%+.1f %% vs sampling off)" % (100 * (m / base - 1))
        print("BRRR_LAUNCH_SAMPLE=%s: loop median %.1f ms over %d runs%s" % (n, m * 1e3, len(runs[n]), rel))
PYEOF
    if grep -q "BRRR_LAUNCH_SAMPLE=64" "$out/launch-sampling.txt"; then
      record launch-sampling MEASURED-PASS "$(grep 'SAMPLE=64' "$out/launch-sampling.txt")"
    else
      record launch-sampling FAIL "no timing (see launch-sampling.tsv)"
    fi
  fi
fi

# --- 7. Hardware counters (issue 11) -------------------------------------------------------------
# A matmul-heavy and a pointwise-heavy loop under `brrr run --counters`: counters_check.py says
# which device regime each got and on what basis, prints the counter figures, and turns them into
# result rows (counters-{matmul,pointwise}-{regime,counters}); then the pointwise loop's cost of
# --counters (steps/s, interleaved runs).
counters_checks=(matmul-regime matmul-counters pointwise-regime pointwise-counters cost)
if wants counters; then
  section "counters: brrr run --counters, matmul-heavy vs pointwise-heavy loop"
  if [[ "$torch_ok" != yes ]]; then
    why_not="no usable torch"
    [[ -n "$simulated" ]] && why_not="simulated device: no PyTorch runs"
    for n in "${counters_checks[@]}"; do record "counters-$n" SKIP "$why_not"; done
  elif [[ "$("$brrr" --help 2>&1)" != *--counters* ]]; then # (not grep -q: pipefail, SIGPIPE)
    for n in "${counters_checks[@]}"; do
      record "counters-$n" FAIL "the bundle's brrr has no --counters: rebuild it (tools/gpu/bundle.sh)"
    done
  else
    brrr_flags=(--counters)
    for w in matmul pointwise; do
      run_under_brrr "counters-$w" "$py" "$gpu_dir/workloads/${w}_loop.py" \
        --result "$out/counters-$w.result.json"
      [[ -f "$out/counters-$w.brrr" ]] &&
        "$brrr" report "$out/counters-$w.brrr" >"$out/counters-$w.report.txt" 2>&1
      echo "[counters-$w] $(json_get "$out/counters-$w.result.json" \
        '"%d steps, %.1f steps/s" % (d["iters"], d["steps_per_s"])')"
      if [[ "$app_rc" != 0 ]]; then
        record "counters-$w-app" FAIL "the workload exited $app_rc under brrr --counters (see counters-$w.stderr)"
        rm -f "$out/counters-$w.report.json" # its verdict would say nothing about the loop
      fi
    done
    brrr_flags=()
    lines="$("$py" "$gpu_dir/counters_check.py" check "$out/counters-matmul.report.json" \
      "$out/counters-pointwise.report.json" 2>&1)"
    echo "$lines" | tee "$out/counters-check.txt" | sed 's/^/    /'
    rows=0
    while IFS= read -r line; do
      if [[ "$line" =~ ^(ok|FAIL|SKIP)\ +([a-z0-9-]+):\ (.*)$ ]]; then
        status="${BASH_REMATCH[1]}"
        [[ "$status" == ok ]] && status=PASS
        record "counters-${BASH_REMATCH[2]}" "$status" "${BASH_REMATCH[3]}"
        rows=$((rows + 1))
      fi
    done <<<"$lines"
    ((rows > 0)) || record counters-check FAIL "counters_check.py printed no verdict (see counters-check.txt)"

    # Cost: the pointwise loop under brrr without and with --counters, interleaved.
    cost_tsv="$out/counters-cost.tsv"
    : >"$cost_tsv"
    for ((i = 1; i <= counters_runs; i++)); do
      for mode in plain counters; do
        result="$scratch/counters-cost-$mode-$i.json"
        rm -f "$result"
        flags=()
        [[ "$mode" == counters ]] && flags=(--counters)
        timeout "$run_timeout" "$brrr" run --quiet "${flags[@]}" --output "$scratch/counters-cost.brrr" \
          -- "$py" "$gpu_dir/workloads/pointwise_loop.py" --result "$result" >/dev/null 2>"$scratch/err"
        rc=$?
        steps_per_s="$(json_get "$result" 'd["steps_per_s"]')"
        if [[ "$rc" != 0 || -z "$steps_per_s" ]]; then
          echo "counters cost run $i ($mode) failed with exit $rc:"
          tail -n 5 "$scratch/err"
          steps_per_s=""
        fi
        printf '%s\t%d\t%s\n' "$mode" "$i" "$steps_per_s" >>"$cost_tsv"
      done
      echo "round $i/$counters_runs done"
    done
    cost="$("$py" "$gpu_dir/counters_check.py" cost "$cost_tsv" 2>&1)"
    echo "$cost" | tee "$out/counters-cost.txt"
    cost_line="$(grep -E '^(ok|FAIL) +counters-cost: ' <<<"$cost" | sed -E 's/^(ok|FAIL) +counters-cost: //')"
    if grep -q '^ok' <<<"$cost"; then
      refused=""
      grep -q '^SKIP pointwise-counters' <<<"$lines" &&
        refused=" (counters were refused: this is the probe's cost only)"
      record counters-cost MEASURED "pointwise loop, median of $counters_runs: $cost_line$refused"
    else
      record counters-cost FAIL "${cost_line:-counters_check.py cost failed}"
    fi
  fi
fi

# --- 8. What tracing costs (issue 26): CUPTI per activity kind and callback domain, brrr's modes --
if wants cost; then
  section "cost: CUPTI kinds and domains per launch; brrr's modes on the launch-bound loop"
  if [[ -n "$simulated" || "$torch_ok" != yes ]]; then
    record cost SKIP "needs the real driver and torch"
  elif bash "$gpu_dir/tracing_cost.sh" "$brrr" "$py" "$out" "$runs" "sm_$compute_cap"; then
    record cost MEASURED "see cost.txt"
  else
    record cost FAIL "tracing_cost.sh failed (see above)"
  fi
fi

# --- 9. PyTorch's record_function labels and prof.step() (issue 25) -------------------------------
if wants labels; then
  section "labels: record_function and prof.step() as phases and steps"
  if [[ "$torch_ok" != yes ]]; then
    record labels SKIP "no usable torch"
  else
    label_steps=30
    for variant in plain torch-cuda; do
      name="labels-$variant"
      workload_flag="" check_flag=""
      [[ "$variant" == torch-cuda ]] && workload_flag=--torch-cuda check_flag=--handed-over
      run_under_brrr "$name" "$py" "$gpu_dir/workloads/torch_labels_loop.py" --steps "$label_steps" \
        ${workload_flag:+"$workload_flag"} --result "$out/$name.result.json"
      check_workload "$name" labels_check.py --steps "$label_steps" ${check_flag:+"$check_flag"}
      "$brrr" report "$out/$name.brrr" 2>&1 | sed -n '/^PHASES/,/^$/p' | head -30
    done
    # The cost per label: 200,000 empty labels alone and under brrr, interleaved; medians.
    costs="$out/label-cost.tsv"
    : >"$costs"
    for ((i = 1; i <= runs; i++)); do
      for mode in alone brrr; do
        result="$scratch/label-cost-$mode-$i.json"
        if [[ "$mode" == alone ]]; then
          timeout "$run_timeout" "$py" "$gpu_dir/workloads/torch_labels_loop.py" --steps 5 \
            --label-cost 200000 --result "$result" >/dev/null 2>"$scratch/err"
        else
          timeout "$run_timeout" "$brrr" run --quiet --output "$scratch/label-cost.brrr" -- "$py" \
            "$gpu_dir/workloads/torch_labels_loop.py" --steps 5 --label-cost 200000 \
            --result "$result" >/dev/null 2>"$scratch/err"
        fi
        printf '%s\t%s\n' "$mode" "$(json_get "$result" 'd["label_ns"]')" >>"$costs"
      done
    done
    "$py" - "$costs" <<'PYEOF' | tee "$out/label-cost.txt"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    mode, ns = line.rstrip("\n").split("\t")
    if ns and ns != "None":
        runs.setdefault(mode, []).append(float(ns))
if runs.get("alone") and runs.get("brrr"):
    a, b = statistics.median(runs["alone"]), statistics.median(runs["brrr"])
    print("label cost: %.0f ns alone, %.0f ns under brrr (%+.0f ns per label), medians of %d" %
          (a, b, b - a, min(len(runs["alone"]), len(runs["brrr"]))))
PYEOF
    if grep -q "^label cost" "$out/label-cost.txt"; then
      record label-cost MEASURED "$(sed 's/^label cost: //' "$out/label-cost.txt")"
    else
      record label-cost FAIL "no timing (see label-cost.tsv)"
    fi
  fi
fi

# --- 10. A torchrun job of two ranks on the one GPU (issue 26) ------------------------------------
if wants job; then
  section "job: brrr run -- torchrun, 2 ranks on one GPU (gloo)"
  if [[ "$torch_ok" != yes ]]; then
    record job SKIP "no usable torch"
  else
    run_under_brrr job "$py" -m torch.distributed.run --standalone --nproc_per_node 2 \
      "$gpu_dir/workloads/job_loop.py" --steps 50 --launches-per-step 40 --result "$out/job.result"
    check_workload job job_check.py --results "$out/job.result" --ranks 2
    "$brrr" report "$out/job.brrr" 2>&1 | sed -n '/^PROCESSES\|^JOB/,/^$/p' | head -20
  fi
fi

# --- Summary -------------------------------------------------------------------------------------
section "summary"
if [[ -s "$comparisons" ]]; then
  echo "brrr vs torch.profiler (identical runs):"
  printf '  %-15s %-15s %12s %15s %8s  %s\n' workload metric brrr torch.profiler diff status
  while IFS=$'\t' read -r w m b p d s; do
    printf '  %-15s %-15s %12s %15s %7s%%  %s\n' "$w" "$m" "$b" "$p" "$d" "$s"
  done <"$comparisons"
  echo
fi
[[ -f "$out/overhead.txt" ]] && { echo "overhead:"; sed 's/^/  /' "$out/overhead.txt"; echo; }
[[ -f "$out/counters-check.txt" ]] && { echo "counters:"; sed 's/^/  /' "$out/counters-check.txt"; echo; }
[[ -f "$out/counters-cost.txt" ]] && { echo "counters cost:"; sed 's/^/  /' "$out/counters-cost.txt"; echo; }
printf '%-36s %-14s %s\n' check status detail
while IFS=$'\t' read -r n s d; do printf '%-36s %-14s %s\n' "$n" "$s" "$d"; done <"$results"
failed="$(cut -f2 "$results" | grep -cx FAIL)"
echo
echo "$(grep -c . "$results") checks, $failed failed; $((SECONDS - started)) s; everything is in $out"
((failed == 0)) || exit 1
exit 0
