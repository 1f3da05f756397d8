#!/usr/bin/env python3
"""Tests tools/gpu/counters_check.py (issue 11's GPU check) without a GPU: hand-written brrr JSON
reports of the matmul and pointwise loops go through `counters_check.py check`, hand-written
timings through `cost`, and the verdict lines and exit status are asserted. The figures in the
reports and the expected medians are written here by hand, never produced by brrr.

Must never: need a GPU, torch or a brrr build, or write outside a temporary directory.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "gpu",
                      "counters_check.py")
PERM = ("not permitted: the driver restricts GPU performance counters to administrators "
        "(ERR_NVGPUCTRPERM, NVreg_RestrictProfilingToAdminUsers=1); run as root or load the "
        "driver with NVreg_RestrictProfilingToAdminUsers=0")
MONOTONIC = "PM sample timestamps on CLOCK_MONOTONIC, as kernel records"
NOT_JOINED = "no clock brrr knows puts the samples inside the run: not joined"


def hw_why(samples, sm, dram):
    return ("measured by CUPTI PM sampling over the busy time (%d samples): SM throughput %.1f%% "
            "of peak, DRAM throughput %.1f%% of peak" % (samples, sm, dram))


def report(regime, basis, why, top, counters=None, verdict="device-bound"):
    r = {"verdict": {"regime": verdict, "why": "device busy 97.0% of the steady state",
                     "advice": []},
         "kernels": {"launches": 1600, "device_ns": 2_500_000_000, "top": top}}
    if verdict == "device-bound":
        r["verdict"]["device_regime"] = {"regime": regime, "basis": basis, "why": why}
    if counters is not None:
        r["kernels"]["counters"] = counters
    return r


def kernel(name, cls, launches, device_ns, sm=None, dram=None, coverage=None, shared=None):
    k = {"name": name, "launches": launches, "device_ns": device_ns, "mean_ns": device_ns // launches,
         "class": cls}
    if coverage is not None:
        k.update(counter_coverage=coverage, counter_shared=shared, counter_lower_bound=False)
    if sm is not None:
        k.update(achieved_sm_pct=sm, achieved_dram_pct=dram)
    return k


GEMM = "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
ELEM = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>"
RED = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t>>"


def matmul_hw():
    return report("compute", "hardware counters", hw_why(2400, 81.5, 22.0),
                  [kernel(GEMM, "matmul", 1600, 2_400_000_000, 83.2, 21.4, 0.97, 0.05)],
                  {"clock": MONOTONIC, "samples": 2390, "samples_unaligned": 0, "samples_late": 3,
                   "kernels_late": 0})


def pointwise_hw():
    return report("bandwidth", "hardware counters", hw_why(1700, 18.0, 88.5),
                  [kernel(ELEM, "pointwise", 3000, 1_200_000_000, 15.0, 91.0, 0.99, 0.40),
                   kernel(RED, "reduction", 1200, 300_000_000, 12.5, 86.0, 0.98, 0.75)],
                  {"clock": MONOTONIC, "samples": 1690, "samples_unaligned": 2, "samples_late": 0,
                   "kernels_late": 1})


def classes_why(fallback_reason):
    return ("inferred from kernel names, not measured: matmul/convolution/attention 98.0% of "
            "kernel time (compute-capable), pointwise/reduction/copy 2.0% (bandwidth-bound by "
            "construction); hardware counters not used: " + fallback_reason)


class CountersCheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, content):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_helper(self, *args):
        p = subprocess.run([sys.executable, "-B", HELPER] + list(args), capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout.splitlines(), p.stderr

    def check(self, matmul, pointwise):
        return self.run_helper("check", self.write("m.json", matmul), self.write("p.json", pointwise))

    def verdicts(self, lines):
        """{check name: (status, detail)} of the verdict lines."""
        out = {}
        for line in lines:
            if line[:5] in ("ok   ", "FAIL ", "SKIP "):
                name, _, detail = line[5:].partition(": ")
                out[name] = (line[:4].strip(), detail)
        return out

    def test_hardware_counters_compute_and_bandwidth_pass(self):
        rc, lines, err = self.check(matmul_hw(), pointwise_hw())
        self.assertEqual(rc, 0, lines + [err])
        v = self.verdicts(lines)
        self.assertEqual(sorted(v), ["matmul-counters", "matmul-regime", "pointwise-counters",
                                     "pointwise-regime"])
        self.assertEqual(v["matmul-regime"],
                         ("ok", "device_regime compute (basis hardware counters)"))
        self.assertEqual(v["pointwise-regime"],
                         ("ok", "device_regime bandwidth (basis hardware counters)"))
        self.assertEqual(v["matmul-counters"], ("ok", "hardware counters: run-wide SM 81.5% / "
                                                "DRAM 22.0% of peak over 2400 samples; 2390 "
                                                "samples joined to kernels"))
        self.assertEqual(v["pointwise-counters"][0], "ok")
        # The figures a reader needs are printed: clock, counts, the per-kernel throughputs.
        self.assertIn("     clock: " + MONOTONIC, lines)
        self.assertIn("     samples joined 1690, unaligned 2, late 0; kernels late 1", lines)
        self.assertIn("     kernel #1 %s [matmul]: 1600 launches, 2400.0 ms; SM 83.2%% DRAM "
                      "21.4%% of peak, coverage 0.97, shared 0.05" % GEMM, lines)
        self.assertTrue(any(l.startswith("     kernel #2 void at::native::reduce_kernel<512")
                            and l.endswith("SM 12.5% DRAM 86.0% of peak, coverage 0.98, shared 0.75")
                            for l in lines), lines)

    def test_wrong_regime_fails(self):
        swapped = pointwise_hw()
        rc, lines, _ = self.check(swapped, pointwise_hw())  # the matmul run measured bandwidth
        self.assertEqual(rc, 1)
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-regime"][0], "FAIL")
        self.assertTrue(v["matmul-regime"][1].startswith(
            "device_regime bandwidth, expected compute (basis hardware counters: measured by"))
        self.assertEqual(v["pointwise-regime"][0], "ok")

    def test_permission_fallback_skips_counters_and_passes_regimes(self):
        m = report("compute", "kernel classes", classes_why(PERM),
                   [kernel(GEMM, "matmul", 1600, 2_400_000_000)])
        p = report("bandwidth", "kernel classes", classes_why(PERM),
                   [kernel(ELEM, "pointwise", 3000, 1_200_000_000)])
        rc, lines, err = self.check(m, p)
        self.assertEqual(rc, 0, lines + [err])  # a SKIP is not a failure
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-regime"], ("ok", "device_regime compute (basis kernel classes)"))
        self.assertEqual(v["pointwise-regime"],
                         ("ok", "device_regime bandwidth (basis kernel classes)"))
        for name in ("matmul-counters", "pointwise-counters"):
            self.assertEqual(v[name], ("SKIP", "hardware counters not used: " + PERM))
        self.assertIn("     kernel #1 %s [matmul]: 1600 launches, 2400.0 ms; no counter figures"
                      % GEMM, lines)

    def test_busy_and_unsupported_skip_but_a_failed_cupti_call_fails(self):
        busy = "busy: another tool holds the GPU's performance counters (DCGM profiling metrics)"
        cupti = "PM sampling could not be enabled: CUPTI error 999"
        m = report("compute", "kernel classes", classes_why(busy), [])
        p = report("bandwidth", "kernel classes", classes_why(cupti), [])
        rc, lines, _ = self.check(m, p)
        self.assertEqual(rc, 1)
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-counters"], ("SKIP", "hardware counters not used: " + busy))
        self.assertEqual(v["pointwise-counters"], ("FAIL", "hardware counters not used: " + cupti))

    def test_counters_permitted_but_not_joined_fails(self):
        p = pointwise_hw()
        p["kernels"]["counters"] = {"clock": NOT_JOINED, "samples": 0, "samples_unaligned": 1700,
                                    "samples_late": 0, "kernels_late": 0}
        for k in p["kernels"]["top"]:  # no sample on the kernels' clock: no per-kernel member
            for member in ("achieved_sm_pct", "achieved_dram_pct", "counter_coverage",
                           "counter_shared", "counter_lower_bound"):
                k.pop(member)
        rc, lines, _ = self.check(matmul_hw(), p)
        self.assertEqual(rc, 1)
        v = self.verdicts(lines)
        self.assertEqual(v["pointwise-regime"][0], "ok")  # the run-wide regime still stands
        self.assertEqual(v["pointwise-counters"][0], "FAIL")
        detail = v["pointwise-counters"][1]
        self.assertIn("run-wide SM 18.0% / DRAM 88.5% of peak over 1700 samples", detail)
        self.assertIn('no sample joined a kernel: clock "%s", 1700 samples unaligned' % NOT_JOINED,
                      detail)
        self.assertIn("point (5) of shim/pm_sampler.cc", detail)
        self.assertEqual(v["matmul-counters"][0], "ok")

    def test_counters_permitted_but_no_join_at_all_fails(self):
        m = matmul_hw()
        del m["kernels"]["counters"]
        rc, lines, _ = self.check(m, pointwise_hw())
        self.assertEqual(rc, 1)
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-counters"][0], "FAIL")
        self.assertIn("kernels.counters is absent", v["matmul-counters"][1])

    def test_joined_but_no_top_kernel_figure_fails(self):
        m = matmul_hw()
        for member in ("achieved_sm_pct", "achieved_dram_pct"):
            m["kernels"]["top"][0].pop(member)
        rc, lines, _ = self.check(m, pointwise_hw())
        self.assertEqual(rc, 1)
        self.assertEqual(self.verdicts(lines)["matmul-counters"],
                         ("FAIL", "2390 samples joined but none of the top 1 kernels got a "
                                  "throughput"))

    def test_not_device_bound_fails_regime(self):
        m = report(None, None, None, [kernel(GEMM, "matmul", 1600, 2_400_000_000)],
                   verdict="launch-bound")
        rc, lines, _ = self.check(m, pointwise_hw())
        self.assertEqual(rc, 1)
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-regime"][0], "FAIL")
        self.assertTrue(v["matmul-regime"][1].startswith("verdict launch-bound, not device-bound"))
        # Nothing in the report says whether counters were used: that is a failure too.
        self.assertEqual(v["matmul-counters"][0], "FAIL")
        self.assertTrue(v["matmul-counters"][1].startswith("unknown: no device regime"))

    def test_current_reports_say_it_in_kernels_counters_whatever_the_verdict(self):
        # A refusal on a run that is not device-bound: kernels.counters.unavailable says why.
        m = report(None, None, None, [kernel(GEMM, "matmul", 1600, 2_400_000_000)],
                   {"clock": "no PM sample reached the collector: not joined", "samples": 0,
                    "samples_unaligned": 0, "samples_late": 0, "kernels_late": 0,
                    "unavailable": PERM}, verdict="launch-bound")
        # Run-wide figures from their own members, not the why text (which here has others).
        p = pointwise_hw()
        p["verdict"]["device_regime"]["why"] = "measured by CUPTI PM sampling over the busy time"
        p["kernels"]["counters"].update(busy_sm_pct=31.25, busy_dram_pct=88.0, busy_samples=1700)
        rc, lines, _ = self.check(m, p)
        self.assertEqual(rc, 1)  # the matmul regime check fails: launch-bound
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-counters"], ("SKIP", "hardware counters not used: " + PERM))
        self.assertEqual(v["pointwise-counters"][0], "ok")
        self.assertTrue(v["pointwise-counters"][1].startswith(
            "hardware counters: run-wide SM 31.2% / DRAM 88.0% of peak over 1700 samples"),
            v["pointwise-counters"])

    def test_not_device_bound_but_joined_says_so(self):
        m = matmul_hw()
        m["verdict"] = {"regime": "sync-bound", "why": "device busy 40.0%", "advice": []}
        rc, lines, _ = self.check(m, pointwise_hw())
        self.assertEqual(rc, 1)  # the regime check fails
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-regime"][0], "FAIL")
        self.assertEqual(v["matmul-counters"],
                         ("ok", 'no run-wide figures (no device regime); per-kernel join: 2390 '
                                'samples, clock "%s"' % MONOTONIC))

    def test_counters_asked_but_silently_unused_fails(self):
        m = report("compute", "kernel classes", "inferred from kernel names, not measured: "
                   "matmul/convolution/attention 98.0% of kernel time", [])
        rc, lines, _ = self.check(m, pointwise_hw())
        self.assertEqual(rc, 1)
        v = self.verdicts(lines)
        self.assertEqual(v["matmul-regime"][0], "ok")
        self.assertEqual(v["matmul-counters"][0], "FAIL")
        self.assertIn("neither used hardware counters nor says why", v["matmul-counters"][1])

    def test_unreadable_or_missing_report_fails(self):
        rc, lines, _ = self.run_helper("check", self.write("m.json", "{not json"),
                                       os.path.join(self.tmp.name, "missing.json"))
        self.assertEqual(rc, 1)
        self.assertEqual([l[:20] for l in lines], ["FAIL matmul-report: ", "FAIL pointwise-repor"])

    def test_cost_medians_and_ratio(self):
        # Interleaved rows; the failed run (empty value) is left out. Medians by hand:
        # plain 90, 100, 110 -> 100.0; counters 80, 95, 97 -> 95.0; ratio 0.950 (-5.0 %).
        tsv = self.write("cost.tsv", "plain\t1\t100\ncounters\t1\t95\nplain\t2\t110\n"
                                     "counters\t2\t97\nplain\t3\t90\ncounters\t3\t80\n"
                                     "counters\t4\t\n")
        rc, lines, err = self.run_helper("cost", tsv)
        self.assertEqual(rc, 0, lines + [err])
        self.assertIn("ok   counters-cost: --counters 95.0 vs 100.0 steps/s without: ratio 0.950 "
                      "(-5.0 %)", lines)
        self.assertIn("     brrr run             median 100.0 steps/s over 3 runs "
                      "(100.0, 110.0, 90.0)", lines)
        self.assertIn("     brrr run --counters  median 95.0 steps/s over 3 runs (95.0, 97.0, 80.0)",
                      lines)

    def test_cost_without_runs_of_one_mode_fails(self):
        tsv = self.write("cost.tsv", "plain\t1\t100\ncounters\t1\t\n")
        rc, lines, _ = self.run_helper("cost", tsv)
        self.assertEqual(rc, 1)
        self.assertEqual(lines, ["FAIL counters-cost: not measurable: 1 runs without --counters, "
                                 "0 with"])

    def test_bad_arguments_exit_2(self):
        rc, _, err = self.run_helper("check", "only-one.json")
        self.assertEqual(rc, 2)
        self.assertIn("usage", err)


if __name__ == "__main__":
    unittest.main()
