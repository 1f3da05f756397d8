#!/usr/bin/env python3
"""Checks a brrr JSON report of tools/gpu/workloads/python_lines.py (issue 8 on a real GPU):
  - every `# STALL:name` marker line of the script is in a stall row's stack as
    `function (python_lines.py:LINE)` (for item and cpu it must be the innermost Python frame; a
    print goes through torch's own formatting code first, so there it may be further out);
  - the NVTX ranges are phases: `step`, `step/forward`, `step/backward`, each with exactly --steps
    calls, `step` with launches > 0 and device_ns > 0;
  - launch sites were sampled and at least one names a line of the script;
  - the report says Python frames were read (python.status == "active").
Prints one `ok`/`FAIL` line per check; exit 1 when any failed.

Usage: python_check.py check REPORT.json --script python_lines.py --steps N
       python_check.py --self-test
Must never: take an expected value from the report itself.
"""
import json
import os
import re
import sys

from check_lines import check_parser, print_results

MARKER = re.compile(r"#\s*STALL:(?P<name>\w+)\s*$")
PY_FRAME = re.compile(r"^(?P<func>.+) \((?P<file>[^()]*\.py):(?P<line>\d+)\)$")


def stall_markers(script_text):
    """{name: (function, line)} of the script's `# STALL:name` markers."""
    found, function = {}, "<module>"
    for number, text in enumerate(script_text.splitlines(), start=1):
        d = re.match(r"def (\w+)\(", text)
        if d:
            function = d.group(1)
        m = MARKER.search(text)
        if m:
            found[m.group("name")] = (function, number)
    return found


def python_frames(stack):
    out = []
    for frame in stack:
        m = PY_FRAME.match(frame)
        if m:
            out.append((m.group("func"), os.path.basename(m.group("file")), int(m.group("line"))))
    return out


def check(report, script_name, script_text, steps):
    """[(ok, message)] for one report."""
    results = []
    python = report.get("python") or {}
    results.append((python.get("status") == "active",
                    "python frames read (python.status=%r)" % python.get("status")))
    stalls = report.get("stalls") or []
    for name, (function, line) in sorted(stall_markers(script_text).items()):
        want = (function, script_name, line)
        innermost_only = name in ("item", "cpu")
        hit = None
        for row in stalls:
            frames = python_frames(row.get("stack") or [])
            if (frames[:1] == [want]) if innermost_only else (want in frames):
                hit = row
                break
        where = "innermost Python frame" if innermost_only else "in the stack"
        results.append((hit is not None, "stall %s: %s (%s:%d) %s%s" % (
            name, function, script_name, line, where,
            "" if hit is None else " [%s, %s, %d calls]" % (hit.get("api"), hit.get("reason"),
                                                            hit.get("calls", 0)))))
    phases = {p.get("name"): p for p in report.get("phases") or []}
    for name in ("step", "step/forward", "step/backward"):
        p = phases.get(name)
        results.append((p is not None and p.get("calls") == steps,
                        "phase %s: %s calls (expected %d)" % (
                            name, None if p is None else p.get("calls"), steps)))
    step = phases.get("step") or {}
    results.append((step.get("launches", 0) > 0 and step.get("device_ns", 0) > 0,
                    "phase step: %s launches, %s ns of device time" % (
                        step.get("launches"), step.get("device_ns"))))
    sites = report.get("launch_sites") or []
    named = [s for s in sites
             if any(f[1] == script_name for f in python_frames(s.get("stack") or []))]
    results.append((len(named) > 0, "launch sites: %d, %d naming a line of %s" % (
        len(sites), len(named), script_name)))
    return results


def self_test():
    script = "def log_loss(x):\n    return x.item()  # STALL:item\n\n" \
             "def show(x):\n    print(x)  # STALL:print\n"
    good = {
        "python": {"status": "active"},
        "stalls": [
            {"api": "cudaMemcpyAsync", "reason": "d2h_copy", "calls": 3,
             "stack": ["at::native::item (libtorch.so)", "log_loss (/w/s.py:2)", "main (/w/s.py:9)"]},
            {"api": "cudaMemcpyAsync", "reason": "d2h_copy", "calls": 1,
             "stack": ["x (libtorch.so)", "_str (/t/_tensor_str.py:90)", "show (/w/s.py:5)"]},
        ],
        "phases": [{"name": "step", "calls": 4, "launches": 12, "device_ns": 5},
                   {"name": "step/forward", "calls": 4}, {"name": "step/backward", "calls": 4}],
        "launch_sites": [{"stack": ["k (libtorch.so)", "log_loss (/w/s.py:2)"], "launches": 64}],
    }
    failures = [m for ok, m in check(good, "s.py", script, 4) if not ok]
    assert not failures, failures
    bad = json.loads(json.dumps(good))
    bad["stalls"][0]["stack"] = ["main (/w/s.py:2)", "log_loss (/w/s.py:2)"]  # not innermost
    bad["phases"][1]["calls"] = 3
    bad["launch_sites"] = []
    bad["python"]["status"] = "unsupported_version"
    failures = [m for ok, m in check(bad, "s.py", script, 4) if not ok]
    assert len(failures) == 4, failures
    print("python_check.py self-test passed")


def main():
    p = check_parser("checks a report of python_lines.py", self_test)
    if p is None:
        return 0
    p.add_argument("--script", required=True)
    p.add_argument("--steps", type=int, required=True)
    a = p.parse_args()
    with open(a.report) as f:
        report = json.load(f)
    with open(a.script) as f:
        text = f.read()
    return print_results(check(report, os.path.basename(a.script), text, a.steps))


if __name__ == "__main__":
    sys.exit(main())
