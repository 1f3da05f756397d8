#!/usr/bin/env python3
"""Checks a brrr JSON report of `brrr run -- torchrun --nproc_per_node N workloads/job_loop.py`
(issue 26: a whole job on a real GPU):
  - it is a job report of N processes with ranks 0..N-1, each exited 0;
  - each rank's kernels: at least the ops its result file says it launched, and at most 8 more
    (job_loop.py launches one fill and one reduction besides its ops), with device time;
  - each rank's row has device 0 (the ranks share the one GPU);
  - the job's kernel launches are the ranks' summed.
The expected numbers come from the workload's result files, never from the report.
Prints one `ok`/`FAIL` line per check; exit 1 when any check failed.

Usage: job_check.py check REPORT.json --results PREFIX --ranks N
       job_check.py --self-test
Must never: take an expected value from the report itself.
"""
import json
import sys

from check_lines import check_parser, print_results

EXTRA_KERNELS = 8


def check(report, results, ranks):
    """[(ok, message)] for one report; `results` maps rank -> the workload's result dict."""
    out = []
    job = report.get("job") or {}
    out.append((job.get("processes") == ranks and job.get("ranks") == ranks,
                "job: %s processes, %s ranks, want %d" % (job.get("processes"), job.get("ranks"),
                                                          ranks)))
    rows = {p.get("rank"): p for p in report.get("processes") or []}
    summed = sum((p.get("kernels") or {}).get("launches", 0) for p in rows.values())
    for rank in range(ranks):
        row, result = rows.get(rank), results.get(rank)
        if row is None or result is None:
            out.append((False, "rank %d: %s" % (rank, "no process row" if row is None
                                                 else "no result file from the workload")))
            continue
        out.append((row.get("exit_code") == 0,
                    "rank %d: exit code %s, want 0" % (rank, row.get("exit_code"))))
        kernels = row.get("kernels") or {}
        launches, ops = kernels.get("launches", 0), result.get("ops", 0)
        out.append((ops <= launches <= ops + EXTRA_KERNELS and kernels.get("device_ns", 0) > 0,
                    "rank %d: %s kernels (%s ns on the device), want %d to %d" %
                    (rank, launches, kernels.get("device_ns"), ops, ops + EXTRA_KERNELS)))
        devices = [d.get("id") for d in row.get("devices") or []]
        out.append((devices == [0], "rank %d: devices %s, want [0]" % (rank, devices)))
    total = (report.get("kernels") or {}).get("launches")
    out.append((total == summed and summed > 0,
                "job: %s kernel launches, the ranks' summed %d" % (total, summed)))
    return out


def load_results(prefix, ranks):
    results = {}
    for rank in range(ranks):
        try:
            with open("%s.rank%d.json" % (prefix, rank)) as f:
                results[rank] = json.load(f)
        except (OSError, ValueError):
            pass
    return results


def self_test():
    def report(launches=(2002, 2002), exit_codes=(0, 0), devices=([0], [0]), total=None):
        rows = [{"rank": r, "exit_code": exit_codes[r], "kernels": {"launches": launches[r],
                                                                   "device_ns": 5},
                 "devices": [{"id": d} for d in devices[r]]} for r in range(2)]
        return {"job": {"processes": 2, "ranks": 2}, "processes": rows,
                "kernels": {"launches": sum(launches) if total is None else total}}

    results = {0: {"ops": 2000}, 1: {"ops": 2000}}

    def failures(r, res=results):
        return [m for ok, m in check(r, res, 2) if not ok]

    assert failures(report()) == [], failures(report())
    assert failures(report(launches=(1999, 2002))) == [
        "rank 0: 1999 kernels (5 ns on the device), want 2000 to 2008"], failures(
            report(launches=(1999, 2002)))
    assert len(failures(report(launches=(2002, 2009)))) == 1
    assert len(failures(report(exit_codes=(0, 1)))) == 1
    assert len(failures(report(devices=([0], [])))) == 1
    assert len(failures(report(total=4003))) == 1
    assert failures(report(), {0: {"ops": 2000}}) == ["rank 1: no result file from the workload"]
    one = report()
    one["job"] = {"processes": 1, "ranks": 1}
    assert len(failures(one)) == 1
    assert len(failures({"processes": []})) == 4  # not a job: no rows, no launches
    print("job_check.py self-test: ok")


def main():
    p = check_parser(__doc__.splitlines()[0], self_test)
    if p is None:
        return 0
    p.add_argument("--results", required=True)
    p.add_argument("--ranks", type=int, required=True)
    args = p.parse_args()
    with open(args.report) as f:
        return print_results(check(json.load(f), load_results(args.results, args.ranks),
                                   args.ranks))


if __name__ == "__main__":
    sys.exit(main())
