"""Acceptance workload (issue 25): a CUDA training loop annotated only as PyTorch's guides annotate
one: `torch.profiler.record_function` labels data_wait, h2d, fwd, bwd and opt in every step and
`prof.step()` of a `torch.profiler.profile` with a schedule; no NVTX call. labels_check.py checks
that brrr reports the labels as phases (with device time) and the ProfilerStep#N ranges as steps.

  --steps N         loop steps (default 30)
  --torch-cuda      torch.profiler records CUDA activity in two steps of its schedule (Kineto then
                    wants CUPTI too): brrr must say who has CUPTI, and the labels must still come
  --label-cost N    after the loop, time N empty `with record_function("x"): pass` blocks and put
                    the ns per label into the result (run alone and under brrr: the difference is
                    brrr's cost per label)
  --result FILE     {"steps", "checksum", "label_ns", "torch"}

Must never: call NVTX, or change its CUDA work with the flags.
"""
import argparse
import json
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--torch-cuda", action="store_true")
    p.add_argument("--label-cost", type=int, default=0)
    p.add_argument("--result")
    args = p.parse_args()

    torch.manual_seed(1234)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 256)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    if args.torch_cuda:
        activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
        plan = schedule(wait=2, warmup=1, active=2, repeat=1)
    else:
        activities = [ProfilerActivity.CPU]
        plan = schedule(wait=args.steps + 100, warmup=1, active=1)  # never traces
    loss = None
    with profile(activities=activities, schedule=plan) as prof:
        for _ in range(args.steps):
            with record_function("data_wait"):
                batch = torch.randn(64, 256).pin_memory()
            with record_function("h2d"):
                x = batch.to(dev, non_blocking=True)
            with record_function("fwd"):
                loss = model(x).pow(2).mean()
            with record_function("bwd"):
                loss.backward()
            with record_function("opt"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            prof.step()
    torch.cuda.synchronize()
    label_ns = None
    if args.label_cost > 0:
        start = time.perf_counter_ns()
        for _ in range(args.label_cost):
            with record_function("x"):
                pass
        label_ns = (time.perf_counter_ns() - start) / args.label_cost
    result = {"steps": args.steps, "checksum": float(loss.item()), "label_ns": label_ns,
              "torch": torch.__version__}
    if args.result:
        with open(args.result, "w") as f:
            json.dump(result, f)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
