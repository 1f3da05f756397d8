#!/usr/bin/env python3
"""Soak: the collector's and the shim's memory over a long run of launches.

Runs the steady-launch program (tests/e2e/steady_launches.cu) at full speed on the simulated device
(kernels and launches of ~0 duration: an hour at 200 k launches/s is 720 M launches, compressed
into as little wall time as the machine allows) under a plain LD_PRELOAD, and samples every
--every seconds the resident memory (VmRSS) of the app (the shim lives in it) and of its collector
(`brrr attach`). Prints one line per sample and a summary: launches/s, and each process's RSS after
the warm-up (the analysis' windows: --warmup seconds) against its RSS at the end. Exits 1 when
--max-growth (a fraction, e.g. 0.2) is given and either grew more than that after the warm-up
(and, with --min-growth-mib M, by more than M MiB: on a loaded machine a collector that falls
behind for a second holds a few MiB more of backlog, which is not a leak; a leak of even 20 bytes
per launch grows by tens of MiB in seconds at these rates).

Usage: tools/soak/rss_soak.py [--build build/default] [--seconds 3600] [--every 10]
                              [--warmup 60] [--max-growth F] [--min-growth-mib M] [--env K=V ...]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def find_collector(app_pid):
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if b"attach" in args and b"--pid" in args:
            i = args.index(b"--pid")
            if i + 1 < len(args) and args[i + 1] == str(app_pid).encode():
                return int(entry)
    return None


def read_counter(path):
    try:
        with open(path) as f:
            parts = f.read().split()
        return int(parts[0]), int(parts[1])
    except (OSError, ValueError, IndexError):
        return 0, 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/default")
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--every", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=60)
    ap.add_argument("--max-growth", type=float, default=None)
    ap.add_argument("--min-growth-mib", type=float, default=0.0)
    ap.add_argument("--preload-prefix", default="",
                    help="put before the shim in LD_PRELOAD (\"libasan.so:\" in sanitizer builds)")
    ap.add_argument("--env", action="append", default=[],
                    help="K=V for the app and its collector (e.g. BRRR_SNAPSHOT_EVERY=0)")
    a = ap.parse_args()
    b = a.build
    program = f"{b}/tests/e2e/e2e_steady_launches"
    shim = f"{b}/lib/libbrrr.so"
    for path in (program, shim, f"{b}/simcuda/lib/libcudart.so.13"):
        if not os.path.exists(path):
            sys.exit(f"rss_soak: missing {path} (build e2e_steady_launches brrr brrr_shim)")
    tmp = tempfile.mkdtemp(prefix="brrr-soak-")
    counter = os.path.join(tmp, "counter")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BRRR_", "LD_PRELOAD", "LD_LIBRARY_PATH", "SIMCUDA_"))}
    env.update({"LD_LIBRARY_PATH": f"{b}/simcuda/lib", "LD_PRELOAD": a.preload_prefix + shim,
                "BRRR_SIM_LAUNCH_NS": "0", "BRRR_SIM_KERNEL_NS": "0", "BRRR_QUIET": "1",
                "BRRR_OUTPUT": os.path.join(tmp, "soak.brrr"), "BRRR_STACKS": "1"})
    env.update(kv.split("=", 1) for kv in a.env)
    app = subprocess.Popen([program, str(a.seconds), counter, "0"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.monotonic()
    collector = None
    samples = []  # (t, launches, app_kib, collector_kib)
    print(f"{'t_s':>8} {'launches':>12} {'launches/s':>11} {'app_rss_MiB':>12} "
          f"{'collector_rss_MiB':>18}", flush=True)
    while app.poll() is None:
        time.sleep(a.every)
        if collector is None:
            collector = find_collector(app.pid)
        t = time.monotonic() - start
        _, launches = read_counter(counter)
        app_kib = rss_kib(app.pid)
        col_kib = rss_kib(collector) if collector else None
        if app_kib is None:
            break
        samples.append((t, launches, app_kib, col_kib))
        rate = launches / t if t > 0 else 0
        print(f"{t:8.1f} {launches:12d} {rate:11.0f} {app_kib / 1024:12.1f} "
              f"{(col_kib or 0) / 1024:18.1f}", flush=True)
    app.wait()
    ok = True
    after = [s for s in samples if s[0] >= a.warmup]
    if len(after) >= 2:
        for name, k in (("app (shim)", 2), ("collector", 3)):
            first, last = after[0][k], after[-1][k]
            if not first or not last:
                continue
            peak = max(s[k] for s in after if s[k])
            growth = (last - first) / first
            print(f"{name}: RSS {first / 1024:.1f} MiB after warm-up, {last / 1024:.1f} MiB at "
                  f"the end (peak {peak / 1024:.1f} MiB): {growth * 100:+.1f}%")
            if (a.max_growth is not None and growth > a.max_growth
                    and (last - first) / 1024 > a.min_growth_mib):
                print(f"rss_soak: {name} grew by {growth * 100:.1f}% "
                      f"({(last - first) / 1024:.1f} MiB) after the warm-up")
                ok = False
        t, launches = samples[-1][0], samples[-1][1]
        print(f"launches: {launches} in {t:.0f} s ({launches / t:.0f}/s)")
    else:
        print("rss_soak: too few samples after the warm-up")
        ok = a.max_growth is None
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
