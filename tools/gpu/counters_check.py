#!/usr/bin/env python3
"""Checks issue 11 on a real GPU: the brrr JSON reports of `brrr run --counters` of a matmul-heavy
loop (workloads/matmul_loop.py) and a pointwise-heavy loop (workloads/pointwise_loop.py).

  check MATMUL.json POINTWISE.json   for each report, two verdict lines:
    NAME-regime    ok when verdict.regime is device-bound and verdict.device_regime.regime is
                   compute (matmul) / bandwidth (pointwise), on either basis;
    NAME-counters  ok when the basis is "hardware counters" and PM samples joined the kernels
                   (kernels.counters.samples > 0 and a top-3 kernel has achieved_sm_pct);
                   SKIP when the GPU or driver refused counters (kernels.counters.unavailable,
                   or in older reports device_regime.why ending with "; hardware counters not
                   used: ", starts with not permitted|busy|not supported);
                   FAIL when counters were permitted but no sample joined a kernel (clock "not
                   joined": the PM sample clock, unverified point (5) of shim/pm_sampler.cc), when
                   a CUPTI call failed, or when the report says nothing about counters.
    Each verdict is followed by indented lines: the run-wide SM/DRAM throughputs, the clock basis,
    the sample counts, the top 3 kernels' figures.
  cost TIMINGS.tsv                   rows "plain|counters <TAB> run <TAB> steps_per_s" (empty when
                                     the run failed): both medians and their ratio.

Output lines start with "ok   ", "FAIL ", "SKIP " (a verdict, "STATUS NAME: detail") or five
spaces (information). Exit status: 0 when no line is FAIL, 1 otherwise (also for an unreadable
report or no timing), 2 for bad arguments. Standard library only.

Must never: take an expected value from the report itself, or turn a refused-counters run into a
FAIL (that is the machine's set-up, not brrr) or a permitted-but-unjoined run into a SKIP.
"""
import argparse
import json
import re
import statistics
import sys

FALLBACK = "; hardware counters not used: "
REFUSED = ("not permitted", "busy", "not supported")  # the GPU/driver said no: SKIP
RUN_WIDE = re.compile(r"\((?P<samples>\d+) samples\): SM throughput (?P<sm>[\d.]+)% of peak, "
                      r"DRAM throughput (?P<dram>[\d.]+)% of peak")
HW_BASIS = "hardware counters"


def _pct(v):
    return "-" if v is None else "%.1f%%" % v


def kernel_lines(report, n=3):
    """Indented lines with the per-kernel figures of the top n kernels."""
    out = []
    for i, k in enumerate(((report.get("kernels") or {}).get("top") or [])[:n], start=1):
        name = str(k.get("name", "?"))
        if len(name) > 70:
            name = name[:67] + "..."
        figures = "no counter figures"
        if k.get("counter_coverage") is not None:
            figures = "SM %s DRAM %s of peak, coverage %.2f, shared %.2f%s" % (
                _pct(k.get("achieved_sm_pct")), _pct(k.get("achieved_dram_pct")),
                k.get("counter_coverage", 0), k.get("counter_shared") or 0,
                ", lower bound" if k.get("counter_lower_bound") else "")
        out.append("     kernel #%d %s [%s]: %s launches, %.1f ms; %s" % (
            i, name, k.get("class", "?"), k.get("launches", "?"),
            (k.get("device_ns") or 0) / 1e6, figures))
    return out


def join_lines(join):
    return ["     clock: %s" % join.get("clock"),
            "     samples joined %s, unaligned %s, late %s; kernels late %s" % (
                join.get("samples"), join.get("samples_unaligned"), join.get("samples_late"),
                join.get("kernels_late"))]


def check_report(name, report, expected):
    """[(status, name, detail, [info lines])] for one report; status ok/FAIL/SKIP."""
    verdict = report.get("verdict") or {}
    regime = verdict.get("regime")
    dr = verdict.get("device_regime")
    basis = (dr or {}).get("basis")
    why = (dr or {}).get("why", "")
    results = []

    # 1. The regime.
    if regime != "device-bound" or not isinstance(dr, dict):
        results.append(("FAIL", name + "-regime", "verdict %s, not device-bound, so no device "
                        "regime (%s)" % (regime, verdict.get("why", "")), []))
    elif dr.get("regime") != expected:
        results.append(("FAIL", name + "-regime", "device_regime %s, expected %s (basis %s: %s)" % (
            dr.get("regime"), expected, basis, why), []))
    else:
        results.append(("ok", name + "-regime", "device_regime %s (basis %s)" % (expected, basis),
                        ["     why: " + why]))

    # 2. The counters.
    cname = name + "-counters"
    join = (report.get("kernels") or {}).get("counters")
    kernels = kernel_lines(report)
    top3 = ((report.get("kernels") or {}).get("top") or [])[:3]
    # kernels.counters says whether counters were used whatever the verdict (unavailable,
    # busy_sm_pct, busy_dram_pct); reports from before it say so only in device_regime.why.
    unavailable = join.get("unavailable") if isinstance(join, dict) else None
    if unavailable is None and FALLBACK in why:
        unavailable = why.split(FALLBACK, 1)[1]
    if basis == HW_BASIS:
        m = RUN_WIDE.search(why)
        if isinstance(join, dict) and join.get("busy_sm_pct") is not None:
            run_wide = "run-wide SM %.1f%% / DRAM %s of peak over %s samples" % (
                join["busy_sm_pct"], _pct(join.get("busy_dram_pct")), join.get("busy_samples"))
        elif m:
            run_wide = "run-wide SM %s%% / DRAM %s%% of peak over %s samples" % (
                m.group("sm"), m.group("dram"), m.group("samples"))
        else:
            run_wide = "run-wide figures unreadable in device_regime.why"
        info = []  # run_wide is in the verdict's detail
        if not isinstance(join, dict):
            results.append(("FAIL", cname, "counters permitted (%s) but kernels.counters is absent: "
                            "no PM sample reached the per-kernel join" % run_wide, info + kernels))
        elif not join.get("samples"):
            results.append(("FAIL", cname, "counters permitted (%s) but no sample joined a kernel: "
                            "clock \"%s\", %s samples unaligned; the PM sample clock (point (5) "
                            "of shim/pm_sampler.cc) matched none brrr knows" % (
                                run_wide, join.get("clock"), join.get("samples_unaligned")),
                            info + join_lines(join) + kernels))
        elif not any(k.get("achieved_sm_pct") is not None for k in top3):
            results.append(("FAIL", cname, "%s samples joined but none of the top %d kernels got a "
                            "throughput" % (join.get("samples"), len(top3)),
                            info + join_lines(join) + kernels))
        else:
            results.append(("ok", cname, "hardware counters: %s; %s samples joined to kernels" % (
                run_wide, join.get("samples")), info + join_lines(join) + kernels))
    elif unavailable:
        status = "SKIP" if unavailable.startswith(REFUSED) else "FAIL"
        results.append((status, cname, "hardware counters not used: " + unavailable, kernels))
    elif isinstance(join, dict):
        # No device regime to say what counters said run-wide; the join still tells.
        ok = bool(join.get("samples"))
        results.append(("ok" if ok else "FAIL", cname, "no run-wide figures (no device regime); "
                        "per-kernel join: %s samples, clock \"%s\"" % (
                            join.get("samples"), join.get("clock")), join_lines(join) + kernels))
    elif dr is None:
        results.append(("FAIL", cname, "unknown: no device regime (not device-bound), where the "
                        "report would say whether counters were used, and no kernels.counters",
                        kernels))
    else:
        results.append(("FAIL", cname, "--counters was asked for but the report neither used "
                        "hardware counters nor says why (basis %s, no kernels.counters)" % basis,
                        kernels))
    return results


def load(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, "cannot read %s: %s" % (path, e)
    if not isinstance(report, dict):
        return None, "%s is not a JSON object" % path
    return report, None


def cmd_check(matmul_path, pointwise_path):
    failed = False
    for name, path, expected in (("matmul", matmul_path, "compute"),
                                 ("pointwise", pointwise_path, "bandwidth")):
        report, error = load(path)
        if report is None:
            print("FAIL %s-report: %s" % (name, error))
            failed = True
            continue
        for status, check, detail, info in check_report(name, report, expected):
            print("%-4s %s: %s" % (status, check, detail))
            for line in info:
                print(line)
            failed = failed or status == "FAIL"
    return 1 if failed else 0


def cmd_cost(tsv_path):
    runs = {"plain": [], "counters": []}
    try:
        with open(tsv_path) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) == 3 and fields[0] in runs and fields[2]:
                    runs[fields[0]].append(float(fields[2]))
    except (OSError, ValueError) as e:
        print("FAIL counters-cost: cannot read %s: %s" % (tsv_path, e))
        return 1
    if not runs["plain"] or not runs["counters"]:
        print("FAIL counters-cost: not measurable: %d runs without --counters, %d with" % (
            len(runs["plain"]), len(runs["counters"])))
        return 1
    plain = statistics.median(runs["plain"])
    counters = statistics.median(runs["counters"])
    for label, key, m in (("brrr run", "plain", plain), ("brrr run --counters", "counters", counters)):
        print("     %-20s median %.1f steps/s over %d runs (%s)" % (
            label, m, len(runs[key]), ", ".join("%.1f" % v for v in runs[key])))
    ratio = counters / plain
    print("ok   counters-cost: --counters %.1f vs %.1f steps/s without: ratio %.3f (%+.1f %%)" % (
        counters, plain, ratio, 100 * (ratio - 1)))
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="regimes and counters of the two reports")
    c.add_argument("matmul_report")
    c.add_argument("pointwise_report")
    t = sub.add_parser("cost", help="medians of the interleaved runs without/with --counters")
    t.add_argument("timings")
    a = p.parse_args(argv)
    if a.command == "check":
        return cmd_check(a.matmul_report, a.pointwise_report)
    return cmd_cost(a.timings)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
