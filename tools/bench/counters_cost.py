#!/usr/bin/env python3
"""What `brrr run --counters` costs in CPU time, on the simulated device with the fake PM
sampling library (tests/e2e/fake_pm_sampling.cc, through the test-only BRRR_PM_SAMPLING_LIBRARY).

Runs e2e_steady_launches (one tiny kernel every INTERVAL_US for SECONDS) under `brrr run`, with
and without --counters, REPEAT times each, and prints the user+system CPU time of the whole run
(brrr, its collector and the app, from wait4) and the difference per second of run: the shim's
sampler thread (a 20 ms poll, a decode every 100 ms) and the collector's reading of the table.
The fake decodes instantly: on a GPU, CUPTI's decode and metric evaluation add their own cost,
which only a GPU can measure.

MODE (default ok) is the fake's BRRR_FAKE_PM_MODE: `ok` decodes 2 samples every 100 ms on a clock
of its own (nothing to join per kernel); `timed` streams one sample per ms of real time on
CLOCK_REALTIME, as a GPU sampling every 1 ms would, which the collector joins to every kernel.

Usage: counters_cost.py BUILD_DIR [SECONDS] [REPEAT] [MODE]
"""
import os
import subprocess
import sys
import tempfile


def run_once(build, seconds, counters, mode="ok"):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BRRR_", "SIMCUDA_", "LD_PRELOAD", "LD_LIBRARY_PATH"))}
    env["LD_LIBRARY_PATH"] = os.path.join(build, "simcuda", "lib")
    env["BRRR_PM_SAMPLING_LIBRARY"] = os.path.join(build, "tests", "e2e",
                                                   "libbrrr_fake_pm_sampling.so")
    env["BRRR_FAKE_PM_MODE"] = mode
    with tempfile.TemporaryDirectory() as tmp:
        argv = [os.path.join(build, "lib", "brrr"), "run", "--quiet",
                "--output", os.path.join(tmp, "run.brrr")]
        if counters:
            argv.append("--counters")
        argv += ["--", os.path.join(build, "tests", "e2e", "e2e_steady_launches"), str(seconds),
                 os.path.join(tmp, "count"), "1000"]
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            sys.exit(f"counters_cost: {' '.join(argv)} exited with status {status}")
        return usage.ru_utime + usage.ru_stime


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    mode = sys.argv[4] if len(sys.argv) > 4 else "ok"
    plain = sorted(run_once(build, seconds, False, mode) for _ in range(repeat))
    counted = sorted(run_once(build, seconds, True, mode) for _ in range(repeat))
    mid = repeat // 2
    print(f"run of {seconds} s, one kernel per ms, {repeat} runs each, fake mode {mode} "
          f"(median, min..max):")
    print(f"  without --counters  CPU {plain[mid] * 1e3:8.1f} ms  "
          f"({plain[0] * 1e3:.1f}..{plain[-1] * 1e3:.1f})")
    print(f"  with --counters     CPU {counted[mid] * 1e3:8.1f} ms  "
          f"({counted[0] * 1e3:.1f}..{counted[-1] * 1e3:.1f})")
    print(f"  counters cost       {(counted[mid] - plain[mid]) * 1e3 / seconds:8.2f} ms of CPU "
          f"per second of run (fake PM sampling library; a GPU's decode is not included)")


if __name__ == "__main__":
    main()
