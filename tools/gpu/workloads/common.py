"""Shared scaffolding of the PyTorch acceptance workloads (tools/gpu/workloads/*.py).

Every workload runs the same CUDA work whether it is profiled by brrr (from outside, nothing to do
here), by torch.profiler (--torch-profiler FILE) or by nobody, so kernel counts and device times of
two runs can be compared. With --torch-profiler the profiler covers the whole run (start=early,
before the first CUDA call) or everything after the warm-up (start=late); its Chrome trace is
exported (--trace, default FILE with .trace.json) and summarised into FILE:
  {"kernels": n, "kernel_ns": ..., "memcpy_ns": ..., "memset_ns": ..., "busy_ns": ...,
   "trace": path, "start": "early"|"late"}
--result FILE gets {"workload", "iters", "seed", "loop_s", "steps_per_s", "checksum",
"profiler"} (steps_per_s: timed iterations per second of loop_s).

Must never: launch CUDA work that depends on whether a profiler is active, or hide a failure (any
error ends the process with a non-zero status and a message on stderr).
"""

import argparse
import json
import os
import sys
import time


def parse_args(description, default_iters, extra=None):
    """The common flags; extra(parser), when given, adds a workload's own."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--iters", type=int, default=default_iters, help="timed loop iterations")
    p.add_argument("--warmup", type=int, default=5, help="iterations before the timed loop")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--torch-profiler", metavar="FILE",
                   help="run under torch.profiler; write its kernel summary to FILE")
    p.add_argument("--trace", metavar="FILE", help="where to export the profiler's Chrome trace")
    p.add_argument("--profiler-start", choices=("early", "late"), default="early",
                   help="start the profiler before any CUDA work (early) or after the warm-up")
    p.add_argument("--result", metavar="FILE", help="write loop time and checksum to FILE")
    if extra is not None:
        extra(p)
    args = p.parse_args()
    if args.iters < 1 or args.warmup < 0:
        p.error("--iters must be >= 1 and --warmup >= 0")
    if args.torch_profiler and not args.trace:
        base = args.torch_profiler[:-5] if args.torch_profiler.endswith(".json") else args.torch_profiler
        args.trace = base + ".trace.json"
    return args


def interval_union_ns(intervals):
    """Total length of the union of [start, end) intervals, in the intervals' unit."""
    total = 0
    cur_start = cur_end = None
    for start, end in sorted(intervals):
        if cur_end is None or start > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    if cur_end is not None:
        total += cur_end - cur_start
    return total


def summarize_trace(trace):
    """Kernel count and device times (ns) of a torch.profiler Chrome trace (a parsed dict)."""
    kernels = 0
    by_name = {}
    sums = {"kernel": 0.0, "gpu_memcpy": 0.0, "gpu_memset": 0.0}
    intervals = []
    for ev in trace.get("traceEvents", []):
        if not isinstance(ev, dict) or ev.get("ph") != "X":
            continue
        cat = str(ev.get("cat", "")).lower()
        if cat not in sums:
            continue
        ts_us, dur_us = float(ev.get("ts", 0)), float(ev.get("dur", 0))
        sums[cat] += dur_us
        intervals.append((ts_us, ts_us + dur_us))
        if cat == "kernel":
            kernels += 1
            name = str(ev.get("name", ""))[:200]
            by_name[name] = by_name.get(name, 0) + 1
    return {
        "kernels": kernels,
        "by_name": by_name,
        "kernel_ns": round(sums["kernel"] * 1000),
        "memcpy_ns": round(sums["gpu_memcpy"] * 1000),
        "memset_ns": round(sums["gpu_memset"] * 1000),
        "busy_ns": round(interval_union_ns(intervals) * 1000),
    }


def fail(message):
    print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
    sys.exit(1)


class Run:
    """One workload run: seeds, optional torch.profiler, the timed loop, the output files.

    Use: run = Run(args, "name"); torch = run.torch; ...build...; run.warmed_up(); ...loop...;
    run.finish(checksum).
    """

    def __init__(self, args, name):
        self.args = args
        self.name = name
        self._profiler = None
        self._loop_start = None
        try:
            import torch
        except ImportError as e:
            fail(f"cannot import torch: {e}")
        if not torch.cuda.is_available():
            fail("torch.cuda.is_available() is False")
        self.torch = torch
        torch.manual_seed(args.seed)
        if args.torch_profiler and args.profiler_start == "early":
            self._start_profiler()
        torch.cuda.manual_seed_all(args.seed)

    def _start_profiler(self):
        from torch.profiler import ProfilerActivity, profile
        self._profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        self._profiler.__enter__()

    def warmed_up(self):
        """Call between the warm-up and the timed loop."""
        self.torch.cuda.synchronize()
        if self.args.torch_profiler and self.args.profiler_start == "late":
            self._start_profiler()
        self._loop_start = time.perf_counter()

    def finish(self, checksum):
        """Call after the loop: syncs, stops the profiler, writes the files. Returns loop seconds."""
        self.torch.cuda.synchronize()
        loop_s = time.perf_counter() - self._loop_start
        summary = None
        if self._profiler is not None:
            self._profiler.__exit__(None, None, None)
            self._profiler.export_chrome_trace(self.args.trace)
            with open(self.args.trace) as f:
                summary = summarize_trace(json.load(f))
            summary.update(trace=self.args.trace, start=self.args.profiler_start)
            with open(self.args.torch_profiler, "w") as f:
                json.dump(summary, f, indent=2)
        result = {"workload": self.name, "iters": self.args.iters, "seed": self.args.seed,
                  "loop_s": loop_s, "steps_per_s": self.args.iters / loop_s if loop_s > 0 else None,
                  "checksum": float(checksum), "profiler": summary}
        if self.args.result:
            with open(self.args.result, "w") as f:
                json.dump(result, f, indent=2)
        print(f"{self.name}: {self.args.iters} iterations in {loop_s * 1e3:.1f} ms, "
              f"checksum {float(checksum):.6g}"
              + (f", torch.profiler saw {summary['kernels']} kernels" if summary else ""))
        return loop_s
