"""Driver of tools/bench/python_stack_bench.sh: times brrr_pybench loops called from a Python
stack of DEPTH frames (this module's frame + nested calls) or from a C++ thread without Python,
and prints one line per case: "case median_ns". With BRRR_BENCH_SEGMENT=create it first creates
the segment `brrr run` would and re-executes itself with BRRR_SHM set (the shim reads it at
start-up); then it keeps the rings drained and prints what the shim recorded about Python.

Must never: measure anything but the extension's own loops (the Python overhead of one run() call
is outside its timed part)."""
import os
import statistics
import sys
import time

import brrr_pybench as bench

if os.environ.get("BRRR_BENCH_SEGMENT") == "create" and "BRRR_SHM" not in os.environ:
    os.environ["BRRR_SHM"] = bench.create_segment()
    os.execv(sys.executable, [sys.executable] + sys.argv)
if "BRRR_SHM" in os.environ:
    bench.attach(os.environ["BRRR_SHM"])
    os.environ.pop("BRRR_SHM")

DEPTH = int(os.environ.get("DEPTH", "30"))
CALLS = int(os.environ.get("CALLS", "20000"))
REPETITIONS = int(os.environ.get("REPETITIONS", "15"))
LAUNCH, QUERY = 0, 1


def nested(levels, kind, native_thread):
    if levels <= 1:
        return bench.run(kind, CALLS, REPETITIONS, native_thread)
    return nested(levels - 1, kind, native_thread)


def median(kind, native_thread):
    # This module's frame + median() + DEPTH - 2 nested() = DEPTH Python frames at the call.
    return statistics.median(nested(DEPTH - 2, kind, native_thread))


print("launch_python %.1f" % median(LAUNCH, 0))
print("launch_native %.1f" % median(LAUNCH, 1))
print("query_python %.1f" % median(QUERY, 0))
time.sleep(0.05)  # let the drainer catch up before reading the counters
summary = bench.summary()
if summary is not None:
    for key, value in summary.items():
        print("#", key, value)
