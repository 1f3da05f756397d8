"""End-to-end tests of brrr on Python programs (issue 8): the interpreter running this file runs
train_loop.py and fault_scenarios.py with the minitorch extension (built for it by CMake) under
`brrr run` on the simulated device, and the JSON reports are checked against what the scripts are
known to do: the exact function and file:line of every planted stall (found through the scripts'
marker comments), the NVTX phases with their calls and launches, the launch sites, the Python
status, and that faults (finalization, C++ threads, freed code objects, fork) neither crash the app
nor change its exit status nor misname a frame.

Run by CTest once per CPython, e.g.
  python3 python_e2e_test.py --brrr build/default/lib/brrr \\
      --module-dir build/default/tests/python/debian-3.11.2 --sim-lib build/default/simcuda/lib

Must never: take an expected number from brrr's own output, let the caller's LD_PRELOAD,
LD_LIBRARY_PATH, BRRR_*, SIMCUDA_* or PYTHON* settings reach a run, or leave files behind.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN_LOOP = os.path.join(HERE, "train_loop.py")
FAULTS = os.path.join(HERE, "fault_scenarios.py")
CAPTURE_RANGE = os.path.join(HERE, "capture_range.py")
TORCH_LABELS = os.path.join(HERE, "torch_labels.py")
OPTIONS = None  # set by main()

# Versions whose frames brrr reads.
SUPPORTED = (3, 9) <= sys.version_info[:2] <= (3, 13)

# Simulated kernel duration: long enough that every planted call finds its kernels still queued,
# even on a slow, loaded host.
KERNEL_NS = 2000000
# The fault scenarios stall on one kernel at a time: a longer one, so that a host preempted for a
# few milliseconds between a launch and its .item() still finds it running.
FAULT_KERNEL_NS = 10000000
STEPS = 3
FORWARD, BACKWARD, OPTIMIZER = 4, 6, 2

# "function (file.py:LINE)": a Python frame in a report stack.
PY_FRAME = re.compile(r"^(?P<func>.+) \((?P<file>[^()]*\.py):(?P<line>\d+)\)$")
MARKER = re.compile(r"#\s*(?P<kind>STALL|LAUNCH|CALL):(?P<name>\w+)\s*$")
EVAL_LOOP_FRAMES = ("_PyEval_EvalFrameDefault", "_PyEval_EvalFrame ", "_PyEval_Vector")


def markers(path):
    """{"KIND:name": (function, line)} for the marker comments of a script."""
    found = {}
    function = "<module>"
    with open(path) as f:
        for number, text in enumerate(f, start=1):
            d = re.match(r"def (\w+)\(", text)
            if d:
                function = d.group(1)
            elif text.strip() and not text[0].isspace() and not text.startswith(("#", '"')):
                function = "<module>"
            m = MARKER.search(text)
            if m:
                key = m.group("kind") + ":" + m.group("name")
                if key in found:
                    raise AssertionError("marker %s twice in %s" % (key, path))
                found[key] = (function, number)
    return found


def python_frame(frame):
    """(function, file basename, line) of a Python frame string, None for a native one."""
    m = PY_FRAME.match(frame)
    if not m:
        return None
    return (m.group("func"), os.path.basename(m.group("file")), int(m.group("line")))


def python_frames(stack):
    return [p for p in (python_frame(f) for f in stack) if p is not None]


def innermost_python(stack):
    frames = python_frames(stack)
    return frames[0] if frames else None


def native_frames_inside(stack):
    """The frames before the innermost Python frame (all of them if there is none)."""
    for i, frame in enumerate(stack):
        if python_frame(frame) is not None:
            return stack[:i]
    return list(stack)


def describe_stalls(report):
    rows = []
    for s in report.get("stalls", []):
        rows.append("  %s %s calls=%s total_ns=%s\n      %s" % (
            s.get("api"), s.get("reason"), s.get("calls"), s.get("total_ns"),
            "\n      ".join(s.get("stack", [])[:16])))
    return "\nstalls:\n" + "\n".join(rows)


def describe_sites(report):
    rows = []
    for s in report.get("launch_sites", []):
        rows.append("  launches=%s\n      %s" % (s.get("launches"),
                                                 "\n      ".join(s.get("stack", [])[:10])))
    return "\nlaunch_sites:\n" + "\n".join(rows)


def sim_environment(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LD_PRELOAD", "LD_LIBRARY_PATH", "BRRR_", "SIMCUDA_", "PYTHON"))}
    env["LD_LIBRARY_PATH"] = OPTIONS.sim_lib
    env["PYTHONPATH"] = OPTIONS.module_dir
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if OPTIONS.preload_prefix:
        # Sanitizer builds: the sanitized shim and extension need the ASan runtime first. The
        # interpreter itself is not sanitized and leaks by design at exit: no leak check there.
        env["LD_PRELOAD"] = OPTIONS.preload_prefix.rstrip(":")
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    env.update(extra)
    return env


def run_plain(script, args, extra_env):
    """(exit status, stdout + stderr) of the script without brrr."""
    p = subprocess.run([sys.executable, script] + list(args), env=sim_environment(extra_env),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


def run_profiled(script, args, extra_env, brrr_options=()):
    """(exit status of brrr run, its output, the JSON report) of the script under brrr."""
    with tempfile.TemporaryDirectory(prefix="brrr-python-e2e-") as tmp:
        out = os.path.join(tmp, "run.brrr")
        p = subprocess.run(
            [OPTIONS.brrr, "run", "--quiet", "--output", out] + list(brrr_options) +
            ["--", sys.executable, script] +
            list(args), env=sim_environment(extra_env), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=120)
        output = p.stdout.decode(errors="replace")
        if not os.path.exists(out):
            raise AssertionError("no report written; brrr run said:\n" + output)
        r = subprocess.run([OPTIONS.brrr, "report", out, "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        if r.returncode != 0:
            raise AssertionError("brrr report failed: " + r.stderr.decode(errors="replace"))
        return p.returncode, output, json.loads(r.stdout.decode())


def assert_no_crash(test, output):
    for sign in ("Fatal Python error", "Segmentation fault", "core dumped", "AddressSanitizer",
                 "runtime error:", "Traceback (most recent call last)"):
        test.assertNotIn(sign, output)


def sim_kernels(ns):
    return {"BRRR_SIM_KERNELS": "add_one=%d" % ns}


class PythonStatusMixin(object):
    def assert_python_active(self, report):
        python = report.get("python")
        self.assertIsInstance(python, dict, "report has no python section")
        self.assertEqual(python.get("status"), "active", python)
        version = str(python.get("version"))
        parts = version.split(".")
        self.assertGreaterEqual(len(parts), 2, python)
        self.assertEqual([int(p) for p in parts[:2]], list(sys.version_info[:2]), python)
        if len(parts) >= 3 and parts[2].isdigit():
            self.assertEqual(int(parts[2]), sys.version_info[2], python)


@unittest.skipUnless(SUPPORTED, "brrr reads the frames of CPython 3.9-3.13 only")
class TrainingLoop(unittest.TestCase, PythonStatusMixin):
    """train_loop.py, every launch sampled (BRRR_LAUNCH_SAMPLE=1)."""

    @classmethod
    def setUpClass(cls):
        cls.marks = markers(TRAIN_LOOP)
        env = sim_kernels(KERNEL_NS)
        env["BRRR_LAUNCH_SAMPLE"] = "1"
        cls.exit_code, cls.output, cls.report = run_profiled(
            TRAIN_LOOP, [str(STEPS), str(FORWARD), str(BACKWARD), str(OPTIMIZER)], env)

    def expected_chain(self, innermost_function, stall_marker, call_into):
        """The (function, file, line) chain of a stall, innermost first: the marked line, then
        each caller's marked call line."""
        chain = [(innermost_function, "train_loop.py", self.marks[stall_marker][1])]
        for call in call_into:
            function, line = self.marks["CALL:" + call]
            chain.append((function, "train_loop.py", line))
        return chain

    def stall_rows(self, innermost):
        return [s for s in self.report.get("stalls", []) if
                innermost_python(s.get("stack", [])) == innermost]

    def check_stall(self, marker, function, reason, api, native_function, call_into):
        chain = self.expected_chain(function, marker, call_into)
        rows = self.stall_rows(chain[0])
        self.assertEqual(len(rows), 1, "one row for %s %s" % (chain[0], describe_stalls(self.report)))
        row = rows[0]
        self.assertEqual(row["reason"], reason, describe_stalls(self.report))
        self.assertEqual(row["api"], api)
        self.assertEqual(row["calls"], STEPS)
        # Each call waited for at least one queued kernel.
        self.assertGreaterEqual(row["total_ns"], STEPS * KERNEL_NS // 2)
        stack = row["stack"]
        self.assertEqual(python_frames(stack), chain, "\n".join(stack))
        # The extension's native frames are inside the Python frame that called it.
        inside = native_frames_inside(stack)
        self.assertTrue(any(native_function in f and "minitorch_cuda.cu" in f for f in inside),
                        "no %s (minitorch_cuda.cu) frame inside %s:\n%s" %
                        (native_function, chain[0], "\n".join(stack)))
        # ... and nothing else: the interpreter's own frames between them are replaced.
        for f in inside:
            self.assertTrue("(minitorch_cuda.cu:" in f or "(minitorch_module.cc:" in f,
                            "not the extension's frame: %s\n%s" % (f, "\n".join(stack)))
        # Python frames stand where the interpreter's frames were: one unbroken run, no eval loop.
        first = next(i for i, f in enumerate(stack) if python_frame(f) is not None)
        run = stack[first:first + len(chain)]
        self.assertTrue(all(python_frame(f) is not None for f in run), "\n".join(stack))
        for f in stack:
            self.assertFalse(f.startswith(EVAL_LOOP_FRAMES), "interpreter frame left: " + f)

    def test_exit_status_and_launch_count(self):
        self.assertEqual(self.exit_code, 0, self.output)
        self.assertEqual(self.report["exit_code"], 0)
        self.assertIn("steps %d" % STEPS, self.output)
        self.assertEqual(self.report["kernels"]["launches"], STEPS * (FORWARD + BACKWARD + OPTIMIZER))

    def test_python_status_is_active_with_this_version(self):
        self.assert_python_active(self.report)

    def test_item_stall_names_log_loss_line(self):
        self.check_stall("STALL:item", "log_loss", "d2h_copy", "cudaMemcpy", "Item",
                         ["log_loss", "report_metrics", "train_step", "train", "main"])

    def test_pageable_copy_stall_names_load_batch_line(self):
        self.check_stall("STALL:pageable", "load_batch", "pageable_async_copy", "cudaMemcpyAsync",
                         "CopyAsyncPageable", ["load_batch", "train_step", "train", "main"])

    def test_advice_names_the_top_stalls_python_line_and_remedy(self):
        # The advice quotes the top stall where a person would edit it: its innermost Python
        # line (not the extension's or the runtime's frames), with its kind's remedy -- when the
        # stalls cost the device at least 1% of the steady state (sync drain); a device-bound
        # loop whose stalls wait while kernels run gets no stall advice.
        verdict = self.report["verdict"]
        advice = verdict.get("advice", [])
        self.assertTrue(advice, verdict)
        device = self.report["devices"][0]
        steady = device["wall_ns"] - device["startup_ns"] - device["teardown_ns"]
        costly = verdict["regime"] == "sync-bound" or device["idle"]["sync_drain_ns"] * 100 >= steady
        items = [a for a in advice if a.startswith("host stall: ")]
        if not costly:
            self.assertEqual(items, [], "\n".join(advice))
            return
        top = self.report["stalls"][0]
        function, path, line = innermost_python(top["stack"])
        self.assertEqual(len(items), 1, "\n".join(advice))
        self.assertIn("%s (%s) at %s (" % (top["api"], top["reason"], function), items[0])
        self.assertIn("%s:%d), %d calls" % (path, line, top["calls"]), items[0])
        remedy = {"d2h_copy": "read it every N steps", "pageable_async_copy": "pin_memory=True"}
        self.assertIn(remedy[top["reason"]], items[0])

    def test_no_other_stalls(self):
        calls = {}
        for s in self.report.get("stalls", []):
            calls[s["reason"]] = calls.get(s["reason"], 0) + s["calls"]
        self.assertEqual(calls, {"d2h_copy": STEPS, "pageable_async_copy": STEPS},
                         describe_stalls(self.report))

    def test_phases_have_exact_calls_and_launches(self):
        phases = {p["name"]: p for p in self.report.get("phases", [])}
        self.assertEqual(sorted(phases), ["step", "step/backward", "step/forward", "step/optimizer"],
                         self.report.get("phases"))
        # A phase's launches are all those issued while the host was inside it, nested ranges
        # included.
        expected = {"step": FORWARD + BACKWARD + OPTIMIZER, "step/forward": FORWARD,
                    "step/backward": BACKWARD, "step/optimizer": OPTIMIZER}
        for name, launches in expected.items():
            p = phases[name]
            self.assertEqual(p["calls"], STEPS, name)
            self.assertEqual(p["launches"], STEPS * launches, name)
            self.assertGreater(p["wall_ns"], 0, name)
            parts = ("launch_bound_ns", "sync_drain_ns", "host_outside_cuda_ns")
            for part in parts:
                self.assertGreaterEqual(p["idle"][part], 0, name)
            # One thread: each idle instant counted once, only while the host was inside.
            self.assertLessEqual(sum(p["idle"][part] for part in parts), p["wall_ns"], name)
        for name in ("step/forward", "step/backward", "step/optimizer"):
            p = phases[name]
            # Simulated kernels last exactly KERNEL_NS.
            self.assertAlmostEqual(p["device_ns"], p["launches"] * KERNEL_NS,
                                   delta=p["launches"] * KERNEL_NS // 100, msg=name)
            self.assertEqual(p["stall_ns"], 0, name)  # launches only
            self.assertLessEqual(p["wall_ns"], phases["step"]["wall_ns"], name)
        self.assertGreaterEqual(phases["step"]["device_ns"],
                                STEPS * (FORWARD + BACKWARD + OPTIMIZER) * KERNEL_NS * 99 // 100)
        stalled = sum(s["total_ns"] for s in self.report["stalls"])
        self.assertGreaterEqual(phases["step"]["stall_ns"], stalled * 99 // 100)

    def test_launch_sites_match_exact_launches_per_line(self):
        sites = self.report.get("launch_sites", [])
        expected = {"forward": FORWARD, "backward": BACKWARD, "optimizer_step": OPTIMIZER}
        total = 0
        for marker, (function, line) in sorted(self.marks.items()):
            if not marker.startswith("LAUNCH:"):
                continue
            here = [s for s in sites if innermost_python(s["stack"]) ==
                    (function, "train_loop.py", line)]
            self.assertTrue(here, "no launch site at %s:%d %s" % (function, line,
                                                                  describe_sites(self.report)))
            launches = sum(s["launches"] for s in here)
            self.assertEqual(launches, STEPS * expected[function], describe_sites(self.report))
            total += launches
            for s in here:
                inside = native_frames_inside(s["stack"])
                self.assertTrue(any("LaunchAdd" in f for f in inside), "\n".join(s["stack"]))
                self.assertEqual(python_frames(s["stack"])[1][0], "train_step", s["stack"])
        self.assertEqual(total, STEPS * (FORWARD + BACKWARD + OPTIMIZER))
        self.assertEqual(sum(s["launches"] for s in sites), total, describe_sites(self.report))


@unittest.skipUnless(SUPPORTED, "brrr reads the frames of CPython 3.9-3.13 only")
class Settings(unittest.TestCase, PythonStatusMixin):
    """BRRR_PY_STALL_US, BRRR_LAUNCH_SAMPLE=0 and BRRR_PYTHON=0 take the Python frames away."""

    def run_loop(self, env, python_in_syncing_calls=False):
        exit_code, output, report = run_profiled(
            TRAIN_LOOP, [str(STEPS), str(FORWARD), str(BACKWARD), str(OPTIMIZER)],
            dict(sim_kernels(KERNEL_NS), **env))
        self.assertEqual(exit_code, 0, output)
        # The stalls are still found, with their native stacks.
        d2h = [s for s in report["stalls"] if s["reason"] == "d2h_copy"]
        self.assertEqual(sum(s["calls"] for s in d2h), STEPS, describe_stalls(report))
        self.assertTrue(all(any("Item" in f for f in s["stack"]) for s in d2h))
        for s in report["stalls"]:
            if python_in_syncing_calls:
                # A syncing call carries its Python frames whatever it took (issue 47: its site
                # must not depend on timing); every stall here is one.
                self.assertNotEqual(python_frames(s["stack"]), [], describe_stalls(report))
            else:
                self.assertEqual(python_frames(s["stack"]), [], describe_stalls(report))
        return report

    def test_syncing_calls_keep_python_whatever_the_threshold_unsampled_launches_have_none(self):
        # Every planted stall lasts milliseconds, far below 10 s: the threshold no longer decides
        # for syncing calls (copies to the host, pageable copies, syncs, frees).
        report = self.run_loop({"BRRR_PY_STALL_US": "10000000", "BRRR_LAUNCH_SAMPLE": "0"},
                               python_in_syncing_calls=True)
        self.assert_python_active(report)
        self.assertEqual(report.get("launch_sites", []), [], describe_sites(report))
        sites = [s for s in report["sync_calls"]["rows"]
                 if s["reason"] in ("d2h_copy", "pageable_async_copy")]
        self.assertTrue(sites, report["sync_calls"])
        for s in sites:
            self.assertNotEqual(python_frames(s["stack"]), [], s)

    def test_python_off(self):
        report = self.run_loop({"BRRR_PYTHON": "0", "BRRR_LAUNCH_SAMPLE": "1"})
        python = report.get("python")
        self.assertIsInstance(python, dict, "report has no python section")
        self.assertNotEqual(python.get("status"), "active", python)
        for site in report.get("launch_sites", []):
            self.assertEqual(python_frames(site["stack"]), [], describe_sites(report))


class CaptureRange(unittest.TestCase):
    """torch.cuda.profiler.start()/stop() style: only the launches between them are counted, in a
    process whose CUDA use starts in an extension, before the range."""

    def test_only_the_launches_inside_are_counted(self):
        outside, inside = 5, 7
        exit_code, output, report = run_profiled(
            CAPTURE_RANGE, [str(outside), str(inside)], sim_kernels(200000),
            ["--capture-range=cudaProfilerApi"])
        self.assertEqual(exit_code, 0, output)
        self.assertEqual(report["kernels"]["launches"], inside, report["kernels"])
        launch_calls = sum(a["calls"] for a in report["api"] if a["category"] == "launch")
        self.assertEqual(launch_calls, inside, report["api"])
        capture = report.get("capture")
        self.assertIsInstance(capture, dict)
        self.assertEqual(capture.get("mode"), "cudaProfilerApi")
        self.assertEqual(capture.get("ranges"), 1, capture)
        self.assertGreater(capture.get("captured_ns", 0), 0, capture)


def torch_version():
    """torch.__version__ where this interpreter has PyTorch (Debian's python3-torch), else None."""
    try:
        import torch
    except Exception:
        return None
    return str(torch.__version__)


@unittest.skipUnless(torch_version(), "no PyTorch for this interpreter (Debian: python3-torch)")
class TorchAnnotations(unittest.TestCase):
    """torch_labels.py (issue 25): record_function labels and prof.step() only, no NVTX call."""

    STEPS = 5
    FWD, ATTN, BWD, OPT = 3, 2, 4, 1  # torch_labels.py's launches per label

    @classmethod
    def setUpClass(cls):
        cls.exit_code, cls.output, cls.report = run_profiled(
            TORCH_LABELS, [str(cls.STEPS)], sim_kernels(20000))

    def test_runs_with_its_own_result(self):
        assert_no_crash(self, self.output)
        self.assertEqual(self.exit_code, 0, self.output)
        self.assertIn("RESULT ok torch " + torch_version(), self.output)

    def test_the_report_says_the_labels_are_active(self):
        torch = self.report.get("python", {}).get("torch")
        self.assertEqual(torch, {"version": torch_version(), "annotations": "active",
                                 "reason": ""}, self.report.get("python"))

    def assert_label_phases(self, report):
        # bwd's launches come from another thread (as autograd's do): a thread with no label of
        # its own is in the main thread's labels at the time of its calls.
        phases = {p["name"]: p for p in report.get("phases", [])}
        step = "ProfilerStep#N"
        self.assertEqual(sorted(phases), sorted([step] + [step + "/" + n for n in (
            "data_wait", "fwd", "fwd/attn", "bwd", "opt")]), report.get("phases"))
        launches = {"data_wait": 0, "fwd": self.FWD + self.ATTN, "fwd/attn": self.ATTN,
                    "bwd": self.BWD, "opt": self.OPT}
        for name, per_step in launches.items():
            p = phases[step + "/" + name]
            self.assertEqual(p["calls"], self.STEPS, name)
            self.assertEqual(p["launches"], self.STEPS * per_step, name)
        # start() opens ProfilerStep#0, each step() closes one and opens the next, stop() closes
        # the last: one more than the loop's steps, the last empty.
        self.assertEqual(phases[step]["calls"], self.STEPS + 1)
        self.assertEqual(phases[step]["launches"],
                         self.STEPS * (self.FWD + self.ATTN + self.BWD + self.OPT))

    def test_labels_are_phases_with_exact_calls_nesting_and_launches(self):
        self.assert_label_phases(self.report)

    def test_labels_are_the_same_while_torch_profiler_traces(self):
        # torch.profiler recording (CPU activity) beside brrr: brrr's phases are unchanged, and
        # torch's own trace still has its labels (fwd in each traced step; step 0 is warm-up).
        exit_code, output, report = run_profiled(
            TORCH_LABELS, [str(self.STEPS), "--torch-traces"], sim_kernels(20000))
        assert_no_crash(self, output)
        self.assertEqual(exit_code, 0, output)
        self.assertIn("TORCH_SAW fwd=%d steps=%d" % (self.STEPS - 1, self.STEPS - 1), output)
        self.assertEqual(report["python"]["torch"]["annotations"], "active")
        self.assert_label_phases(report)
        self.assertEqual(report["steps"]["count"], self.STEPS + 1)

    def test_profiler_steps_are_the_steps(self):
        steps = self.report.get("steps")
        self.assertIsInstance(steps, dict, "no steps in the report")
        self.assertEqual(steps["source"], "nvtx:ProfilerStep#N")
        self.assertEqual(steps["count"], self.STEPS + 1)
        self.assertEqual(steps["unfinished"], 0)

    def test_wall_starts_at_the_exec_so_imports_and_a_slow_start_are_start_up(self):
        # Issue 47: with record_function labels, a script that imports torch and sleeps 1 s before
        # its first CUDA call reported a wall of under a quarter of its run. The wall starts at
        # the interpreter's exec: the imports and the second are start-up, not missing.
        started = time.monotonic()
        exit_code, output, report = run_profiled(
            TORCH_LABELS, [str(self.STEPS), "--sleep-first", "1.0"], sim_kernels(20000))
        elapsed_ns = (time.monotonic() - started) * 1e9
        self.assertEqual(exit_code, 0, output)
        wall = report["wall_ns"]
        self.assertGreaterEqual(wall, 1.0e9, output)
        self.assertLessEqual(wall, elapsed_ns)  # never more than brrr run itself took
        device = report["devices"][0]
        self.assertGreaterEqual(device["startup_ns"], 1.0e9)
        self.assertEqual(device["wall_ns"], wall)
        self.assert_label_phases(report)

    def test_without_the_setting_no_labels(self):
        _, output, report = run_profiled(TORCH_LABELS, [str(self.STEPS)],
                                         dict(sim_kernels(20000), BRRR_TORCH_ANNOTATIONS="0"))
        self.assertIn("RESULT ok", output)
        self.assertEqual(report.get("phases", []), [])
        self.assertNotIn("torch", report.get("python", {}))


@unittest.skipIf(SUPPORTED, "this interpreter's frames are read")
class UnsupportedInterpreter(unittest.TestCase):
    """An interpreter outside 3.9-3.13: native stacks only, said once, NVTX phases unaffected."""

    def test_native_stacks_and_phases(self):
        exit_code, output, report = run_profiled(
            TRAIN_LOOP, [str(STEPS), str(FORWARD), str(BACKWARD), str(OPTIMIZER)],
            sim_kernels(KERNEL_NS))
        self.assertEqual(exit_code, 0, output)
        python = report.get("python")
        self.assertIsInstance(python, dict)
        self.assertEqual(python.get("status"), "unsupported_version", python)
        self.assertIn("%d.%d" % sys.version_info[:2], python.get("note", ""))  # says why
        rows = [s for s in report["stalls"] if s["reason"] == "d2h_copy"]
        self.assertEqual(sum(s["calls"] for s in rows), STEPS, describe_stalls(report))
        for s in report["stalls"]:
            self.assertEqual(python_frames(s["stack"]), [], describe_stalls(report))
        self.assertTrue(any(any("Item" in f for f in s["stack"]) for s in rows))
        phases = {p["name"]: p for p in report.get("phases", [])}
        self.assertEqual(phases["step/forward"]["launches"], STEPS * FORWARD)


@unittest.skipUnless(SUPPORTED, "brrr reads the frames of CPython 3.9-3.13 only")
class Faults(unittest.TestCase, PythonStatusMixin):
    @classmethod
    def setUpClass(cls):
        cls.marks = markers(FAULTS)

    def line(self, marker):
        return self.marks[marker]

    def test_finalizing_while_a_daemon_thread_is_inside_cuda(self):
        # The daemon thread's synchronize() returns around or after the interpreter's
        # finalization; two timings, the app's status must pass through unchanged and nothing
        # may crash.
        kernel_ns = 300000000
        for sleep_s in ("0.25", "0.29"):
            plain_status, plain_output = run_plain(FAULTS, ["finalize", sleep_s],
                                                   sim_kernels(kernel_ns))
            self.assertEqual(plain_status, 3, plain_output)
            exit_code, output, report = run_profiled(FAULTS, ["finalize", sleep_s],
                                                     sim_kernels(kernel_ns))
            self.assertEqual(exit_code, 3, output)
            self.assertEqual(report["exit_code"], 3)
            assert_no_crash(self, output)
            # If the daemon's sync was recorded, its Python frames (if any survived) are its own:
            # threading's bootstrap, never garbage read from a finalized interpreter.
            for stall in report["stalls"]:
                for function, file, line in python_frames(stall["stack"]):
                    self.assertEqual(file, "threading.py", describe_stalls(report))

    def test_cpp_thread_without_python_state_has_native_stacks(self):
        launches = 5
        exit_code, output, report = run_profiled(
            FAULTS, ["cpp_thread", str(launches)],
            dict(sim_kernels(FAULT_KERNEL_NS), BRRR_LAUNCH_SAMPLE="1"))
        self.assertEqual(exit_code, 0, output)
        assert_no_crash(self, output)
        self.assert_python_active(report)
        # The C++ thread's device sync: its own native stack, never the Python frames of the
        # thread that waits for it in join().
        syncs = [s for s in report["stalls"] if s["reason"] == "device_sync"]
        self.assertEqual(len(syncs), 1, describe_stalls(report))
        self.assertEqual(syncs[0]["calls"], 1)
        self.assertEqual(python_frames(syncs[0]["stack"]), [], describe_stalls(report))
        self.assertTrue(any("RunInCppThread" in f for f in syncs[0]["stack"]),
                        describe_stalls(report))
        cpp_sites = [s for s in report.get("launch_sites", [])
                     if any("RunInCppThread" in f for f in s["stack"])]
        self.assertEqual(sum(s["launches"] for s in cpp_sites), launches, describe_sites(report))
        for s in cpp_sites:
            self.assertEqual(python_frames(s["stack"]), [], describe_sites(report))
        # The Python thread's stall still has its Python frames.
        function, line = self.line("STALL:python_thread")
        rows = [s for s in report["stalls"]
                if innermost_python(s["stack"]) == (function, "fault_scenarios.py", line)]
        self.assertEqual(len(rows), 1, describe_stalls(report))
        self.assertEqual(rows[0]["reason"], "d2h_copy")
        self.assertEqual(rows[0]["calls"], 1)

    def test_code_objects_collected_between_capture_and_resolution(self):
        generations = 6
        exit_code, output, report = run_profiled(FAULTS, ["gc", str(generations)],
                                                 sim_kernels(FAULT_KERNEL_NS))
        self.assertEqual(exit_code, 0, output)
        assert_no_crash(self, output)
        self.assert_python_active(report)
        caller, call_line = self.line("CALL:generation")
        d2h = [s for s in report["stalls"] if s["reason"] == "d2h_copy"]
        self.assertEqual(sum(s["calls"] for s in d2h), generations, describe_stalls(report))
        for i in range(generations):
            expected = ("stall_gen_%d" % i, "gc_gen_%d.py" % i, i + 3)
            rows = [s for s in d2h if innermost_python(s["stack"]) == expected]
            self.assertEqual(len(rows), 1, "%s %s" % (expected, describe_stalls(report)))
            self.assertEqual(rows[0]["calls"], 1, expected)
            self.assertEqual(python_frames(rows[0]["stack"])[1],
                             (caller, "fault_scenarios.py", call_line))
        # Never one generation's name with another's file or line.
        for s in d2h:
            for function, file, line in python_frames(s["stack"]):
                m = re.match(r"stall_gen_(\d+)$", function)
                if m:
                    i = int(m.group(1))
                    self.assertEqual((file, line), ("gc_gen_%d.py" % i, i + 3), s["stack"])
                else:
                    self.assertFalse(file.startswith("gc_gen_"), s["stack"])

    def test_fork_child_not_profiled_parent_report_intact(self):
        plain_status, plain_output = run_plain(FAULTS, ["fork"], sim_kernels(FAULT_KERNEL_NS))
        self.assertEqual(plain_status, 4, plain_output)
        exit_code, output, report = run_profiled(FAULTS, ["fork"], sim_kernels(FAULT_KERNEL_NS))
        self.assertEqual(exit_code, 4, output)
        self.assertEqual(report["exit_code"], 4)
        assert_no_crash(self, output)
        self.assert_python_active(report)
        self.assertEqual(report["kernels"]["launches"], 2)
        for marker in ("STALL:before_fork", "STALL:after_fork"):
            function, line = self.line(marker)
            rows = [s for s in report["stalls"]
                    if innermost_python(s["stack"]) == (function, "fault_scenarios.py", line)]
            self.assertEqual(len(rows), 1, "%s %s" % (marker, describe_stalls(report)))
            self.assertEqual(rows[0]["reason"], "d2h_copy")
            self.assertEqual(rows[0]["calls"], 1)
        self.assertEqual(sum(s["calls"] for s in report["stalls"]), 2, describe_stalls(report))


def main():
    global OPTIONS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--brrr", required=True)
    parser.add_argument("--module-dir", required=True)
    parser.add_argument("--sim-lib", required=True)
    parser.add_argument("--preload-prefix", default="")
    OPTIONS, rest = parser.parse_known_args()
    print("brrr Python e2e tests on CPython %s (%s)" % (sys.version.split()[0], sys.executable))
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
