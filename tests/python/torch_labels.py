"""A training loop annotated only as PyTorch's guides annotate one, for brrr's Python end-to-end
tests (issue 25): `torch.profiler.record_function` labels data_wait, fwd (with attn inside), bwd
and opt (as a decorator) in each step, and `prof.step()` of a `torch.profiler.profile` whose
schedule never starts tracing (so that its ProfilerStep#N ranges are all it adds). No NVTX call anywhere. The CUDA work
is minitorch's (the test bed's extension, on the simulated device): a known number of launches
inside each label. As PyTorch's autograd does on a GPU, bwd's launches are made by another thread
(the engine's device thread) while the main thread waits inside `bwd`. Prints "RESULT ok" and
torch's version.

With --torch-traces, torch.profiler records too (CPU activity: warm-up in the first step, tracing
in the others) and the script prints what torch's own profile saw: "TORCH_SAW fwd=N steps=M", the
count of each label's events and of ProfilerStep ranges in its trace. brrr's labels must not
change, and torch must still see its own.

Must never: make CUDA calls other than the ones counted here, or call NVTX itself.

With --sleep-first SECONDS it sleeps that long after its imports, before its first CUDA call: a
slow start (data loading, a model built on the host) that the report must count as start-up.

Usage: torch_labels.py STEPS [--torch-traces] [--sleep-first SECONDS]
"""
import queue
import sys
import threading
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

import minitorch as mt

# Launches inside each label of a step (nested ones counted in their parent too, by brrr).
FWD, ATTN, BWD, OPT = 3, 2, 4, 1


class BackwardThread:
    """Runs each step's backward launches on a thread of its own, as PyTorch's autograd engine
    runs loss.backward() on its device thread while the caller waits."""

    def __init__(self, weights):
        self._jobs, self._done = queue.Queue(), queue.Queue()
        self._weights = weights
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while self._jobs.get():
            for _ in range(BWD):
                mt.launch_add(self._weights)
            self._done.put(True)

    def backward(self):
        self._jobs.put(True)
        self._done.get()

    def stop(self):
        self._jobs.put(False)


def step(weights, engine):
    with record_function("data_wait"):
        torch.ones(64).sum()  # CPU work, no CUDA
    with record_function("fwd"):
        for _ in range(FWD):
            mt.launch_add(weights)
        with record_function("attn"):
            for _ in range(ATTN):
                mt.launch_add(weights)
    with record_function("bwd"):
        engine.backward()
    optimizer_step(weights)


@record_function("opt")  # the decorator form: a label around every call
def optimizer_step(weights):
    for _ in range(OPT):
        mt.launch_add(weights)


def main():
    steps = int(sys.argv[1])
    torch_traces = "--torch-traces" in sys.argv[2:]
    if "--sleep-first" in sys.argv[2:]:
        time.sleep(float(sys.argv[sys.argv.index("--sleep-first") + 1]))
    weights = mt.alloc(1024)
    engine = BackwardThread(weights)
    seen = {}

    def trace_ready(prof):
        for event in prof.key_averages():
            seen[event.key] = seen.get(event.key, 0) + event.count

    if torch_traces:
        plan = schedule(wait=0, warmup=1, active=steps - 1)
    else:
        plan = schedule(wait=steps + 100, warmup=1, active=1)  # never traces
    with profile(activities=[ProfilerActivity.CPU], schedule=plan,
                 on_trace_ready=trace_ready) as prof:
        for _ in range(steps):
            step(weights, engine)
            prof.step()
    engine.stop()
    mt.synchronize()
    if torch_traces:
        print("TORCH_SAW fwd=%d steps=%d" % (seen.get("fwd", 0), seen.get("ProfilerStep*", 0)))
    print("RESULT ok torch", torch.__version__)


if __name__ == "__main__":
    main()
