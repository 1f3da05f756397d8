"""A training loop annotated only as PyTorch's guides annotate one, for brrr's Python end-to-end
tests (issue 25): `torch.profiler.record_function` labels data_wait, fwd (with attn inside), bwd
and opt in each step, and `prof.step()` of a `torch.profiler.profile` whose schedule never starts
tracing (so that its ProfilerStep#N ranges are all it adds). No NVTX call anywhere. The CUDA work
is minitorch's (the test bed's extension, on the simulated device): a known number of launches
inside each label. Prints "RESULT ok" and torch's version.

Must never: make CUDA calls other than the ones counted here, or call NVTX itself.

Usage: torch_labels.py STEPS
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

import minitorch as mt

# Launches inside each label of a step (nested ones counted in their parent too, by brrr).
FWD, ATTN, BWD, OPT = 3, 2, 4, 1


def step(weights):
    with record_function("data_wait"):
        torch.ones(64).sum()  # CPU work, no CUDA
    with record_function("fwd"):
        for _ in range(FWD):
            mt.launch_add(weights)
        with record_function("attn"):
            for _ in range(ATTN):
                mt.launch_add(weights)
    with record_function("bwd"):
        for _ in range(BWD):
            mt.launch_add(weights)
    with record_function("opt"):
        for _ in range(OPT):
            mt.launch_add(weights)


def main():
    steps = int(sys.argv[1])
    weights = mt.alloc(1024)
    never = schedule(wait=steps + 100, warmup=1, active=1)
    with profile(activities=[ProfilerActivity.CPU], schedule=never) as prof:
        for _ in range(steps):
            step(weights)
            prof.step()
    mt.synchronize()
    print("RESULT ok torch", torch.__version__)


if __name__ == "__main__":
    main()
