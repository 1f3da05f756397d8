"""Acceptance workload (issue 26): one rank of a `torchrun` job whose ranks share the machine's
one GPU. Each step launches --launches-per-step one-kernel ops (`x.add_(1)`) on the GPU, then
all-reduces a CPU tensor through gloo (NCCL refuses two ranks on one GPU: "Duplicate GPU detected",
ncclInvalidUsage since NCCL 2.5, github.com/NVIDIA/nccl/issues/418). job_check.py checks that
`brrr run -- torchrun ...` gives one report with a row per rank and each rank's kernels.

  --steps N                 loop steps (default 50)
  --launches-per-step K     ops per step (default 40)
  --device cuda|cpu         cpu only to try the script where there is no GPU
  --result PREFIX           writes PREFIX.rankR.json: {"rank", "world_size", "ops", "checksum"}

Kernels a rank launches: one to fill x, steps x K adds, one reduction for the checksum.
Must never: use NCCL, or launch work whose count it does not state.
"""
import argparse
import json
import os

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--launches-per-step", type=int, default=40)
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--result")
    args = p.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device(args.device)
    x = torch.zeros(1024, device=dev)
    total = torch.zeros(1)
    for _ in range(args.steps):
        for _ in range(args.launches_per_step):
            x.add_(1)
        if args.device == "cuda":
            torch.cuda.synchronize()
        total.fill_(rank + 1)
        dist.all_reduce(total)  # gloo, on the host
    checksum = float(x.sum().item())
    dist.barrier()
    dist.destroy_process_group()
    if args.result:
        with open("%s.rank%d.json" % (args.result, rank), "w") as f:
            json.dump({"rank": rank, "world_size": world, "ops": args.steps * args.launches_per_step,
                       "checksum": checksum, "allreduced": float(total.item()),
                       "local_rank": int(os.environ.get("LOCAL_RANK", "-1"))}, f)


if __name__ == "__main__":
    main()
