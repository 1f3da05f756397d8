"""Overhead workload: a launch-bound loop of tiny in-place adds (one kernel each) on a small
tensor, synchronized once at the end; --result gets the loop's wall time. See common.py.

Must never: synchronize inside the timed loop (it would hide the launch cost being measured).
"""

import common


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=20000)
    args.warmup = max(args.warmup, 200)
    run = common.Run(args, "tiny_ops")
    torch = run.torch
    x = torch.zeros(256, device="cuda")
    for _ in range(args.warmup):
        x.add_(1)
    run.warmed_up()
    for _ in range(args.iters):
        x.add_(1)
    run.finish(x[0].item())
    if x[0].item() != args.warmup + args.iters:
        common.fail(f"x[0] = {x[0].item()}, expected {args.warmup + args.iters}")


if __name__ == "__main__":
    main()
