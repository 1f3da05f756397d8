#!/usr/bin/env python3
"""The CPU time a command spent itself, not its children: for `brrr run`, the collector's own CPU
apart from the app it started. Runs COMMAND with its output discarded, and once it has exited but
before reaping it, reads utime and stime from /proc/PID/stat (a zombie keeps them; its children's
are in other fields). Prints "user U s  sys S s  exit E".

Usage: own_cpu.py COMMAND [ARGS...]
   e.g. LD_LIBRARY_PATH=build/default/simcuda/lib tools/bench/own_cpu.py \\
          build/default/lib/brrr run --quiet --output /tmp/x.brrr -- \\
          build/default/tests/e2e/e2e_launch_bound 2000000

Must never: report a child's time as the command's own, or leave the command unreaped.
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
    try:
        with open(f"/proc/{child.pid}/stat") as f:
            # Fields after the parenthesized command name: state is field 3, utime 14, stime 15.
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        user, system = int(fields[11]) / ticks, int(fields[12]) / ticks
    finally:
        status = child.wait()
    print(f"user {user:.2f} s  sys {system:.2f} s  exit {status}")


if __name__ == "__main__":
    main()
