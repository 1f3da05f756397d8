#!/usr/bin/env python3
"""Reads brrr's JSON report ("brrr.report/1", viewer/format/report.h) for the GPU acceptance script:
checks one report against what the run must show, and compares it with a torch.profiler summary
of an identical run (tools/gpu/workloads/common.py writes those).

  compare.py check REPORT [--kernels N] [--min-kernels N] [--exit-code C] [--host-only yes|no]
  compare.py compare --name NAME REPORT PROFILER_SUMMARY [--count-tolerance PCT]
                     [--time-tolerance PCT] [--append-tsv FILE]
  compare.py --self-test

Each command prints one line per finding and exits 0 when everything holds, 1 when something does
not, 2 on unreadable input.

Must never: take a number from brrr as the expectation for brrr (expectations come from the
caller: the workload's own count, or the other profiler), or report success on a missing field.
"""

import argparse
import json
import os
import sys
import tempfile

REPORT_SCHEMA = "brrr.report/1"


class InputError(Exception):
    pass


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: {e}") from e


def field(obj, dotted, kind):
    """obj["a"]["b"] for "a.b", checked to be of type kind (bool is not an int here)."""
    cur = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise InputError(f"report has no field {dotted}")
        cur = cur[part]
    if kind is int and isinstance(cur, bool) or not isinstance(cur, kind):
        raise InputError(f"report field {dotted} is not a {kind.__name__}")
    return cur


def report_numbers(report):
    """The numbers compared with torch.profiler: launches, kernel ns, busy ns (all devices)."""
    if report.get("schema") != REPORT_SCHEMA:
        raise InputError(f"not a {REPORT_SCHEMA} report (schema {report.get('schema')!r})")
    devices = field(report, "devices", list)
    busy = 0
    for d in devices:
        busy += field(d, "busy_ns", int)
    return {
        "kernels": field(report, "kernels.launches", int),
        "kernel_ns": field(report, "kernels.device_ns", int),
        "busy_ns": busy,
    }


def check(report, kernels=None, min_kernels=None, exit_code=None, host_only=None):
    """Returns (ok, lines) for one report against the expectations given."""
    lines, ok = [], True

    def verdict(good, text):
        nonlocal ok
        ok = ok and good
        lines.append(("ok   " if good else "FAIL ") + text)

    nums = report_numbers(report)
    if kernels is not None:
        verdict(nums["kernels"] == kernels,
                f"kernel launches: brrr {nums['kernels']}, expected {kernels}")
    if min_kernels is not None:
        verdict(nums["kernels"] >= min_kernels,
                f"kernel launches: brrr {nums['kernels']}, expected at least {min_kernels}")
    if exit_code is not None:
        got = field(report, "exit_code", int)
        verdict(got == exit_code, f"exit code in report: {got}, expected {exit_code}")
    if host_only is not None:
        got = field(report, "host_only", bool)
        reason = field(report, "host_only_reason", str)
        verdict(got == host_only, f"host_only: {str(got).lower()}, expected "
                f"{str(host_only).lower()}" + (f" (reason: {reason})" if reason else ""))
        if host_only:
            verdict(reason.strip() != "", "host_only_reason is given")
    coverage = report.get("coverage")
    if isinstance(coverage, dict):
        gaps = coverage.get("gaps") or []
        lines.append("info coverage: hooks {}, CUPTI callbacks {}, CUPTI records only {}; "
                     "no stack for {} calls{}".format(
                         coverage.get("hooked_calls"), coverage.get("callback_calls"),
                         coverage.get("cupti_only_calls"), coverage.get("calls_without_stack"),
                         "".join("; gap: " + str(g) for g in gaps)))
        if host_only is False:
            verdict(bool(coverage.get("complete")), "coverage complete (nothing could escape)")
    regime = field(report, "verdict.regime", str)
    why = field(report, "verdict.why", str)
    verdict(regime != "" and why != "", f"verdict: {regime or '(none)'}")
    return ok, lines


def percent_diff(brrr_value, reference):
    if reference == 0:
        return 0.0 if brrr_value == 0 else float("inf")
    return 100.0 * (brrr_value - reference) / reference


def compare(name, report, summary, count_tol, time_tol):
    """Returns (ok, rows, lines): rows are (name, metric, brrr, torch.profiler, diff %, status)."""
    nums = report_numbers(report)
    rows, ok = [], True
    for metric, key, tol, unit in (("kernels", "kernels", count_tol, 1),
                                   ("kernel time ms", "kernel_ns", time_tol, 1e6),
                                   ("busy time ms", "busy_ns", None, 1e6)):
        if key not in summary or not isinstance(summary[key], (int, float)):
            raise InputError(f"profiler summary has no number {key}")
        diff = percent_diff(nums[key], summary[key])
        status = "info" if tol is None else ("ok" if abs(diff) <= tol else "FAIL")
        ok = ok and status != "FAIL"
        rows.append((name, metric, nums[key] / unit, summary[key] / unit, diff, status))
    lines = [f"{'workload':<16} {'metric':<15} {'brrr':>12} {'torch.profiler':>15} "
             f"{'diff':>8}  status"]
    for r in rows:
        fmt = "{:>12.0f} {:>15.0f}" if r[1] == "kernels" else "{:>12.3f} {:>15.3f}"
        lines.append(f"{r[0]:<16} {r[1]:<15} " + fmt.format(r[2], r[3]) +
                     f" {r[4]:>+7.1f}%  {r[5]}")
    if rows[0][5] == "FAIL":
        lines += name_differences(report, summary.get("by_name"))
    return ok, rows, lines


def name_differences(report, by_name):
    """Lines naming the kernels whose counts differ: brrr's top kernels against the profiler's
    count of the same name (names compared on their first 60 characters)."""
    if not isinstance(by_name, dict):
        return ["(the profiler summary has no kernel names: no per-name comparison)"]
    top = (report.get("kernels") or {}).get("top") or []
    theirs = {}
    for name, n in by_name.items():
        theirs[str(name)[:60]] = theirs.get(str(name)[:60], 0) + (n if isinstance(n, int) else 0)
    lines, seen = ["kernels whose counts differ (brrr's top kernels; brrr / torch.profiler):"], set()
    for k in top:
        if not isinstance(k, dict):
            continue
        key = str(k.get("name", ""))[:60]
        seen.add(key)
        ours = k.get("launches", k.get("count"))
        if ours != theirs.get(key, 0):
            lines.append(f"  {ours} / {theirs.get(key, 0)}  {key}")
    for key, n in sorted(theirs.items(), key=lambda kv: -kv[1]):
        if key not in seen:
            lines.append(f"  (not in brrr's top) - / {n}  {key}")
    return lines


def cmd_check(a):
    ok, lines = check(load_json(a.report), a.kernels, a.min_kernels, a.exit_code,
                      None if a.host_only is None else a.host_only == "yes")
    print("\n".join(lines))
    return 0 if ok else 1


def cmd_compare(a):
    ok, rows, lines = compare(a.name, load_json(a.report), load_json(a.summary),
                              a.count_tolerance, a.time_tolerance)
    print("\n".join(lines))
    if a.append_tsv:
        with open(a.append_tsv, "a") as f:
            for r in rows:
                fmt = "{:.0f}" if r[1] == "kernels" else "{:.3f}"
                f.write("\t".join([r[0], r[1], fmt.format(r[2]), fmt.format(r[3]),
                                   f"{r[4]:+.1f}", r[5]]) + "\n")
    return 0 if ok else 1


def synthetic_report(launches=100, device_ns=5_000_000, busy=6_000_000, exit_code=0,
                     host_only=False, reason="", regime="launch-bound"):
    return {
        "schema": REPORT_SCHEMA, "command": "app", "wall_ns": 10_000_000,
        "exit_code": exit_code, "host_only": host_only, "host_only_reason": reason,
        "events": {"recorded": 1, "dropped": 0, "host": {"recorded": 1, "dropped": 0},
                   "device": {"recorded": 0, "dropped": 0}},
        "api": [], "kernels": {"launches": launches, "device_ns": device_ns, "top": []},
        "launch_latency_ns": {"count": 0, "p50": 0, "p90": 0, "p99": 0, "max": 0},
        "devices": [{"id": 0, "wall_ns": 10_000_000, "busy_ns": busy,
                     "idle": {"launch_bound_ns": 0, "sync_drain_ns": 0,
                              "host_outside_cuda_ns": 0}}],
        "stalls": [], "verdict": {"regime": regime, "why": "numbers" if regime else ""},
    }


def self_test():
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    good = synthetic_report(launches=250, exit_code=3)
    expect(check(good, kernels=250, exit_code=3, host_only=False)[0], "matching report passes")
    expect(not check(good, kernels=251)[0], "one kernel missing fails")
    expect(not check(good, exit_code=0)[0], "wrong exit code fails")
    expect(not check(good, host_only=True)[0], "host_only false when true expected fails")
    expect(not check(synthetic_report(host_only=True), host_only=True)[0],
           "host_only without a reason fails")
    expect(check(synthetic_report(host_only=True, reason="CUPTI busy"), host_only=True)[0],
           "host_only with a reason passes")
    expect(not check(synthetic_report(regime=""))[0], "missing verdict fails")
    expect(check(good, min_kernels=1)[0] and not check(synthetic_report(launches=0),
                                                       min_kernels=1)[0], "min kernels")
    broken = synthetic_report()
    broken["kernels"]["launches"] = True
    try:
        check(broken, kernels=1)
        failures.append("a boolean launch count is rejected")
    except InputError:
        pass
    try:
        check({"schema": "other"})
        failures.append("a foreign schema is rejected")
    except InputError:
        pass
    del broken["devices"]
    try:
        report_numbers(broken)
        failures.append("a report without devices is rejected")
    except InputError:
        pass

    summary = {"kernels": 1000, "kernel_ns": 5_000_000, "busy_ns": 6_000_000}
    ok, rows, _ = compare("w", synthetic_report(launches=1000), summary, 2.0, 10.0)
    expect(ok and rows[0][4] == 0.0 and rows[1][4] == 0.0, "identical numbers compare equal")
    ok, rows, _ = compare("w", synthetic_report(launches=970), summary, 2.0, 10.0)
    expect(not ok and abs(rows[0][4] + 3.0) < 1e-9, "3% fewer kernels fails a 2% tolerance")
    ok, rows, _ = compare("w", synthetic_report(launches=1000, device_ns=5_400_000), summary,
                          2.0, 10.0)
    expect(ok and abs(rows[1][4] - 8.0) < 1e-9, "8% more kernel time passes a 10% tolerance")
    ok, rows, _ = compare("w", synthetic_report(launches=1000, busy=1), summary, 2.0, 10.0)
    expect(ok and rows[2][5] == "info", "busy time is informational")
    expect(percent_diff(5, 0) == float("inf") and percent_diff(0, 0) == 0.0, "zero reference")
    try:
        compare("w", synthetic_report(), {"kernels": 1}, 2.0, 10.0)
        failures.append("a summary without kernel_ns is rejected")
    except InputError:
        pass

    # The workloads' torch.profiler summary (workloads/common.py), on a hand-written trace.
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads"))
    import common  # noqa: E402 (stdlib only at import time; torch is imported by Run)
    trace = {"traceEvents": [
        {"ph": "X", "cat": "kernel", "ts": 100.0, "dur": 10.0},
        {"ph": "X", "cat": "kernel", "ts": 105.0, "dur": 10.0},     # overlaps the first
        {"ph": "X", "cat": "gpu_memcpy", "ts": 200.0, "dur": 2.5},
        {"ph": "X", "cat": "gpu_memset", "ts": 300.0, "dur": 1.0},
        {"ph": "X", "cat": "cuda_runtime", "ts": 90.0, "dur": 500.0},  # host side: ignored
        {"ph": "i", "cat": "kernel", "ts": 50.0},                      # not a complete event
        "junk"]}
    got = common.summarize_trace(trace)
    expect(got.pop("by_name", None) == {"": 2}, f"names: {got}")
    expect(got == {"kernels": 2, "kernel_ns": 20000, "memcpy_ns": 2500, "memset_ns": 1000,
                   "busy_ns": 18500}, f"trace summary: {got}")
    expect(common.interval_union_ns([]) == 0, "empty union")

    # The command-line path: files in, status out.
    with tempfile.TemporaryDirectory() as tmp:
        rpath, spath, tsv = (os.path.join(tmp, n) for n in ("r.json", "s.json", "t.tsv"))
        with open(rpath, "w") as f:
            json.dump(synthetic_report(launches=1000), f)
        with open(spath, "w") as f:
            json.dump(summary, f)
        devnull = open(os.devnull, "w")
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = devnull
        try:
            rc_ok = main(["compare", "--name", "w", rpath, spath, "--append-tsv", tsv])
            rc_bad = main(["check", rpath, "--kernels", "999"])
            rc_missing = main(["check", os.path.join(tmp, "missing.json")])
        finally:
            sys.stdout, sys.stderr = saved
            devnull.close()
        expect(rc_ok == 0 and rc_bad == 1 and rc_missing == 2, "command exit statuses")
        with open(tsv) as f:
            expect(len(f.read().splitlines()) == 3, "three rows appended to the TSV")

    for f in failures:
        print(f"self-test FAILED: {f}")
    print("compare.py self-test: " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    p = argparse.ArgumentParser(description="check brrr reports; compare with torch.profiler")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("report")
    c.add_argument("--kernels", type=int)
    c.add_argument("--min-kernels", type=int)
    c.add_argument("--exit-code", type=int)
    c.add_argument("--host-only", choices=("yes", "no"))
    m = sub.add_parser("compare")
    m.add_argument("--name", required=True)
    m.add_argument("report")
    m.add_argument("summary")
    m.add_argument("--count-tolerance", type=float, default=2.0, help="percent (default 2)")
    m.add_argument("--time-tolerance", type=float, default=10.0, help="percent (default 10)")
    m.add_argument("--append-tsv")
    a = p.parse_args(argv)
    try:
        return cmd_check(a) if a.cmd == "check" else cmd_compare(a)
    except InputError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
