#!/usr/bin/env python3
"""Cost of the shim's periodic CUPTI flush (BRRR_FLUSH_MS), on the simulated device.

Runs the steady-launch program (tests/e2e/steady_launches.cu) at full speed (launches and kernels of
~0 duration) under a plain LD_PRELOAD for --seconds, --reps times each with the flush off
(BRRR_FLUSH_MS=0) and at the default period, and prints medians of: launches/s, the app's CPU time
per launch (all its threads, from /proc/PID/task/*/schedstat, read 0.5 s before the end), and the
control thread's CPU time per second of run (the flush itself and the pause/resume polling).
The per-launch difference between the two is the flush's cost per launch at that launch rate.

Usage: tools/bench/flush_bench.py [--build build/default] [--seconds 4] [--reps 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def task_cpu_ns(pid):
    total, control = 0, 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except (OSError, ValueError):
            continue
        total += ns
        if name == "brrr-control":
            control += ns
    return total, control


def one_run(b, seconds, flush_ms, tmp):
    counter = os.path.join(tmp, f"counter-{flush_ms}")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BRRR_", "LD_PRELOAD", "LD_LIBRARY_PATH", "SIMCUDA_"))}
    env.update({"LD_LIBRARY_PATH": f"{b}/simcuda/lib", "LD_PRELOAD": f"{b}/lib/libbrrr.so",
                "BRRR_SIM_LAUNCH_NS": "0", "BRRR_SIM_KERNEL_NS": "0", "BRRR_QUIET": "1",
                "BRRR_SNAPSHOT_EVERY": "0", "BRRR_FLUSH_MS": str(flush_ms),
                "BRRR_OUTPUT": os.path.join(tmp, f"flush-{flush_ms}.brrr")})
    app = subprocess.Popen([f"{b}/tests/e2e/e2e_steady_launches", str(seconds), counter, "0"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.monotonic()
    time.sleep(seconds - 0.5)
    elapsed = time.monotonic() - start
    cpu, control = task_cpu_ns(app.pid)
    with open(counter) as f:
        launches = int(f.read().split()[1])
    app.wait()
    return launches / elapsed, cpu / launches, control / elapsed / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/default")
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brrr-flush-bench-")
    results = {}
    for flush_ms in (0, 200):
        runs = [one_run(a.build, a.seconds, flush_ms, tmp) for _ in range(a.reps)]
        rate, per_launch, control = (statistics.median(r[i] for r in runs) for i in range(3))
        results[flush_ms] = per_launch
        label = "flush off (BRRR_FLUSH_MS=0)" if flush_ms == 0 else f"flush every {flush_ms} ms"
        print(f"{label:30s} median {rate:9.0f} launches/s  {per_launch:8.1f} ns CPU per launch  "
              f"control thread {control:7.3f} ms CPU per s")
    print(f"flush cost per launch (median difference): {results[200] - results[0]:+.1f} ns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
