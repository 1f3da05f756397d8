#!/usr/bin/env python3
"""Summarises the acceptance script's overhead runs: the launch-bound loop (workloads/tiny_ops.py)
timed alone, under brrr and under torch.profiler, interleaved. Prints the median loop time and
process wall time of each mode, their ratios to "alone", and PASS/FAIL of brrr against the target.

  overhead.py TIMINGS.tsv [--target-percent 3]
  overhead.py --self-test

TIMINGS.tsv: one line per run, "mode<TAB>run<TAB>loop_s<TAB>wall_s", mode in alone|brrr|
torch.profiler; a failed run has "-" for its times and is left out of the medians.
Exit status: 0 when the numbers could be computed (PASS or FAIL: it is a measurement), 2 when not.

Must never: turn a missing measurement into a number (a mode without runs has no median).
"""

import argparse
import os
import statistics
import sys
import tempfile

MODES = ("alone", "brrr", "torch.profiler")


class InputError(Exception):
    pass


def read_timings(path):
    """{mode: {"loop_s": [...], "wall_s": [...]}} from the TSV."""
    runs = {m: {"loop_s": [], "wall_s": []} for m in MODES}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e}") from e
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 4 or parts[0] not in runs:
            raise InputError(f"{path}:{n}: expected mode, run, loop_s, wall_s: {line!r}")
        for key, text in (("loop_s", parts[2]), ("wall_s", parts[3])):
            if text == "-":
                continue
            try:
                value = float(text)
            except ValueError:
                raise InputError(f"{path}:{n}: {key} is not a number: {text!r}") from None
            if value <= 0:
                raise InputError(f"{path}:{n}: {key} must be positive")
            runs[parts[0]][key].append(value)
    return runs


def summarize(runs, target_percent):
    """Returns (lines, verdict) where verdict is PASS, FAIL or None (not measurable)."""
    med = {m: {k: statistics.median(v) if v else None for k, v in runs[m].items()} for m in MODES}
    lines = [f"{'mode':<15} {'runs':>4} {'loop median ms':>15} {'x alone':>8} "
             f"{'wall median s':>14} {'x alone':>8}"]
    for m in MODES:
        row = f"{m:<15} {len(runs[m]['loop_s']):>4}"
        for key, scale, fmt in (("loop_s", 1e3, "{:>15.1f}"), ("wall_s", 1, "{:>14.2f}")):
            value, base = med[m][key], med["alone"][key]
            row += " " + (fmt.format(value * scale) if value else f"{'-':>{len(fmt.format(0))}}")
            row += f" {value / base:>8.3f}" if value and base else f" {'-':>8}"
        lines.append(row)
    alone, brrr = med["alone"]["loop_s"], med["brrr"]["loop_s"]
    if not alone or not brrr:
        lines.append("brrr overhead: not measurable (runs failed)")
        return lines, None
    added = 100.0 * (brrr / alone - 1.0)
    verdict = "PASS" if round(added, 1) <= target_percent else "FAIL"  # as printed
    lines.append(f"brrr overhead on the loop: {added:+.1f}% (target <= +{target_percent:g}%): "
                 f"{verdict}")
    prof = med["torch.profiler"]["loop_s"]
    if prof:
        lines.append(f"torch.profiler overhead on the loop: {100.0 * (prof / alone - 1.0):+.1f}%")
    return lines, verdict


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.tsv")
        with open(path, "w") as f:
            for i, (a, b, p) in enumerate([(1.00, 1.02, 1.8), (1.10, 1.01, 1.9), (0.90, 1.05, 1.7),
                                           (1.00, 1.03, 1.8), (1.05, 9.99, 1.6)]):
                f.write(f"alone\t{i}\t{a}\t{a + 2}\nbrrr\t{i}\t{b}\t{b + 2}\n"
                        f"torch.profiler\t{i}\t{p}\t-\n")
        runs = read_timings(path)
        lines, verdict = summarize(runs, 3.0)
        # medians: alone 1.00, brrr 1.03 -> +3.0% passes a 3% target, fails a 2% one
        if verdict != "PASS":
            failures.append(f"+3.0% vs 3% target: {verdict}\n" + "\n".join(lines))
        if summarize(runs, 2.0)[1] != "FAIL":
            failures.append("+3.0% vs 2% target must fail")
        if len(runs["torch.profiler"]["wall_s"]) != 0:
            failures.append("'-' must not become a number")
        with open(path, "w") as f:
            f.write("alone\t0\t1.0\t1.0\nbrrr\t0\t-\t-\n")
        if summarize(read_timings(path), 3.0)[1] is not None:
            failures.append("no brrr runs must be not measurable")
        for bad in ("alone\t0\tx\t1\n", "other\t0\t1\t1\n", "alone\t0\t1\n", "alone\t0\t0\t1\n"):
            with open(path, "w") as f:
                f.write(bad)
            try:
                read_timings(path)
                failures.append(f"accepted {bad!r}")
            except InputError:
                pass
    for f in failures:
        print(f"self-test FAILED: {f}")
    print("overhead.py self-test: " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    p = argparse.ArgumentParser(description="medians and ratios of the overhead runs")
    p.add_argument("timings")
    p.add_argument("--target-percent", type=float, default=3.0)
    a = p.parse_args(argv)
    try:
        lines, verdict = summarize(read_timings(a.timings), a.target_percent)
    except InputError as e:
        print(f"overhead.py: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0 if verdict else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
