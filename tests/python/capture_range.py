"""A Python program that profiles only its middle part, as torch.cuda.profiler.start()/stop()
users do: OUTSIDE launches, then INSIDE launches between profiler_start() and profiler_stop(),
then OUTSIDE more. The CUDA runtime is first used by the extension (nothing in the interpreter
carries device code), before the range opens.

Usage: capture_range.py OUTSIDE INSIDE
"""
import sys

import minitorch as mt


def main():
    outside, inside = int(sys.argv[1]), int(sys.argv[2])
    buf = mt.alloc(256)
    for _ in range(outside):
        mt.launch_add(buf)
    mt.synchronize()
    mt.profiler_start()
    for _ in range(inside):
        mt.launch_add(buf)
    mt.profiler_stop()
    for _ in range(outside):
        mt.launch_add(buf)
    mt.synchronize()
    mt.free(buf)
    print("done")


if __name__ == "__main__":
    main()
