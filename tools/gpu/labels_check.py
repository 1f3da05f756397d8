#!/usr/bin/env python3
"""Checks a brrr JSON report of tools/gpu/workloads/torch_labels_loop.py (issue 25 on a real GPU):
  - python.torch says the labels are active;
  - each label is a phase ProfilerStep#N/LABEL with exactly --steps calls (data_wait, h2d, fwd,
    bwd, opt); fwd, bwd and opt have launches and device time (unless brrr handed CUPTI over);
  - the steps come from ProfilerStep#N: --steps of them, or one more (torch opens a last,
    empty one);
  - the phase ProfilerStep#N holds (within 5 %) the launches the steps counted by time, those of
    every thread: backward's kernels, launched by autograd's own thread while the main thread
    waits inside `bwd`, are in the phases too (unless brrr handed CUPTI over);
  - with --handed-over (torch.profiler recorded CUDA activity too): brrr says it is host-only and
    why, so that who has CUPTI is stated.
Prints one `ok`/`FAIL` line per check, and the other phases torch itself labelled as `note`
lines; exit 1 when any check failed.

Usage: labels_check.py check REPORT.json --steps N [--handed-over]
       labels_check.py --self-test
Must never: take an expected value from the report itself.
"""
import json
import sys

from check_lines import check_parser, print_results

LABELS = ("data_wait", "h2d", "fwd", "bwd", "opt")
WITH_DEVICE_WORK = ("fwd", "bwd", "opt")
STEP = "ProfilerStep#N"


def check(report, steps, handed_over):
    """([(ok, message)], [note]) for one report."""
    results, notes = [], []
    torch = (report.get("python") or {}).get("torch") or {}
    results.append((torch.get("annotations") == "active",
                    "record_function labels active (python.torch=%r)" % torch))
    phases = {p.get("name"): p for p in report.get("phases") or []}
    for label in LABELS:
        p = phases.get(STEP + "/" + label)
        if p is None:
            results.append((False, "phase %s/%s missing" % (STEP, label)))
            continue
        results.append((p.get("calls") == steps,
                        "%s/%s: %s calls, want %d" % (STEP, label, p.get("calls"), steps)))
        if label in WITH_DEVICE_WORK and not handed_over:
            results.append((p.get("launches", 0) > 0 and p.get("device_ns", 0) > 0,
                            "%s/%s: %s launches, %s ns on the device" %
                            (STEP, label, p.get("launches"), p.get("device_ns"))))
    wanted = {STEP} | {STEP + "/" + label for label in LABELS}
    for name in sorted(set(phases) - wanted):
        notes.append("other phase %s: %s calls" % (name, phases[name].get("calls")))
    s = report.get("steps") or {}
    results.append((s.get("source") == "nvtx:" + STEP and s.get("count") in (steps, steps + 1),
                    "steps: %s from %s, want %d or %d" % (s.get("count"), s.get("source"), steps,
                                                          steps + 1)))
    if not handed_over:
        by_time = (s.get("per_step") or {}).get("launches", 0) * (s.get("count") or 0)
        in_phase = (phases.get(STEP) or {}).get("launches", 0)
        results.append((by_time > 0 and in_phase >= 0.95 * by_time,
                        "%s: %s launches in the phase, %.0f in the steps (every thread's)" %
                        (STEP, in_phase, by_time)))
    if handed_over:
        results.append((report.get("host_only") is True and bool(report.get("host_only_reason")),
                        "CUPTI handed over: host_only=%r, reason %r" %
                        (report.get("host_only"), report.get("host_only_reason"))))
    return results, notes


def self_test():
    def report(calls=3, device_ns=5, host_only=False, annotations="active", count=4):
        phases = [{"name": STEP, "calls": 4, "launches": 9, "device_ns": 9}]
        phases += [{"name": STEP + "/" + label, "calls": calls, "launches": 3,
                    "device_ns": device_ns} for label in LABELS]
        phases.append({"name": STEP + "/opt/Optimizer.step#SGD.step", "calls": 3})
        return {"python": {"torch": {"annotations": annotations}}, "phases": phases,
                "steps": {"source": "nvtx:" + STEP, "count": count,
                          "per_step": {"launches": 9 / count}}, "host_only": host_only,
                "host_only_reason": "torch.profiler has CUPTI" if host_only else ""}

    def failures(r, handed_over=False):
        return [m for ok, m in check(r, 3, handed_over)[0] if not ok]

    assert failures(report()) == [], failures(report())
    assert check(report(), 3, False)[1] == [
        "other phase ProfilerStep#N/opt/Optimizer.step#SGD.step: 3 calls"]
    assert len(failures(report(calls=2))) == len(LABELS)
    assert len(failures(report(device_ns=0))) == len(WITH_DEVICE_WORK)
    assert failures(report(device_ns=0, host_only=True), handed_over=True) == []
    assert len(failures(report(), handed_over=True)) == 1  # not host-only: who has CUPTI?
    assert len(failures(report(annotations="unsupported"))) == 1
    assert len(failures(report(count=7))) == 1
    missing = report()
    missing["phases"] = [p for p in missing["phases"] if not p["name"].endswith("/h2d")]
    assert failures(missing) == ["phase ProfilerStep#N/h2d missing"]
    other_thread = report()  # backward's launches (another thread's) outside the phases
    other_thread["steps"]["per_step"]["launches"] = 19 / 4
    assert failures(other_thread) == [
        "ProfilerStep#N: 9 launches in the phase, 19 in the steps (every thread's)"], failures(
            other_thread)
    print("labels_check.py self-test: ok")


def main():
    p = check_parser(__doc__.splitlines()[0], self_test)
    if p is None:
        return 0
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--handed-over", action="store_true")
    args = p.parse_args()
    with open(args.report) as f:
        results, notes = check(json.load(f), args.steps, args.handed_over)
    return print_results(results, notes)


if __name__ == "__main__":
    sys.exit(main())
