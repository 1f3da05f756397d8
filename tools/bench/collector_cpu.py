#!/usr/bin/env python3
"""CPU time of each per-process collector (`brrr attach`) of a job, for tools/bench/job_bench.sh.

Runs COMMAND (a launcher under a plain LD_PRELOAD of libbrrr.so) as a child subreaper
(PR_SET_CHILD_SUBREAPER), so that the collectors the shim starts in the background are reparented
here; each exited process is peeked at with waitid(WNOWAIT) to read its name (/proc/PID/comm stays
readable for a zombie) and then reaped with wait4 for its own user+system CPU time. Prints one
line per collector: "collector PID user_ms sys_ms" and the command's exit status last.

Usage: collector_cpu.py COMMAND [ARGS...]
"""
import ctypes
import os
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("collector_cpu: prctl(PR_SET_CHILD_SUBREAPER) failed")
    command = subprocess.Popen(sys.argv[1:])
    status = None
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)
        except ChildProcessError:
            break
        if info is None:
            continue
        pid = info.si_pid
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
        except OSError:
            name = "?"
        _, wait_status, usage = os.wait4(pid, 0)
        if pid == command.pid:
            status = os.waitstatus_to_exitcode(wait_status)
        elif name == "brrr":
            print(f"collector {pid} {usage.ru_utime * 1e3:.1f} {usage.ru_stime * 1e3:.1f}",
                  flush=True)
    print(f"status {status}", flush=True)


if __name__ == "__main__":
    main()
