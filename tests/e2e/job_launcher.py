#!/usr/bin/env python3
"""E2E launcher for multi-process jobs: a plain Python script that starts N ranks of WORKER with
subprocess (RANK / LOCAL_RANK / WORLD_SIZE set per rank, started in reverse rank order), runs a
helper that never uses CUDA, waits for every rank and prints one JSON line:
{"order": [ranks in the order they exited], "codes": {rank: returncode}}.
Exits 0 when every rank exited 0, else 7. JOB_RANK_ENV="R:NAME=VALUE" adds NAME=VALUE to rank R's
environment only.

Usage: job_launcher.py WORKER N [WORKER OPTIONS...]
"""
import json
import os
import subprocess
import sys


def main():
    worker, n, options = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    by_pid = {}
    special_rank, _, special = os.environ.get("JOB_RANK_ENV", "").partition(":")
    for rank in reversed(range(n)):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(n))
        if special and special_rank == str(rank):
            name, _, value = special.partition("=")
            env[name] = value
        proc = subprocess.Popen([worker] + options, env=env, stdout=subprocess.DEVNULL)
        by_pid[proc.pid] = (rank, proc)
    subprocess.run(["/bin/sh", "-c", "true"], check=True)  # a child that never uses CUDA
    order, codes = [], {}
    while len(order) < n:
        pid, status = os.wait()
        if pid not in by_pid:
            continue
        rank, proc = by_pid[pid]
        proc.returncode = os.waitstatus_to_exitcode(status)
        order.append(rank)
        codes[rank] = proc.returncode
    print(json.dumps({"order": order, "codes": codes}), flush=True)
    return 0 if all(code == 0 for code in codes.values()) else 7


if __name__ == "__main__":
    sys.exit(main())
