"""Counters workload (issue 11), pointwise-heavy: chains of elementwise ops and full reductions
on large fp32 tensors (hundreds of MiB each, far beyond the L2 cache) with no synchronization, so
the device is busy with bandwidth-bound kernels; --result gets the loop time and steps per second.
See common.py for the common flags. A step moves about 8 GB (7.5 GiB: 15 passes over 512 MiB),
about 3 ms at an H100's ~3 TB/s, so the default 2500 steps keep the device busy for about 7 s: far
more than the 70 % of the steady state a device-bound verdict needs, start-up included.

Must never: synchronize or copy to the host inside the timed loop (the run must be device-bound),
or change its CUDA work with the profiler flags.
"""

import common


def add_flags(p):
    p.add_argument("--numel", type=int, default=1 << 27,
                   help="elements per tensor (default 2^27: 512 MiB of fp32)")


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=2500, extra=add_flags)
    run = common.Run(args, "pointwise_loop")
    torch = run.torch
    x = torch.rand(args.numel, device="cuda")
    y = torch.rand(args.numel, device="cuda")
    z = torch.empty_like(x)
    acc = torch.zeros((), device="cuda")

    def step():
        nonlocal acc
        torch.mul(x, 0.5, out=z)  # elementwise: read 1, write 1
        z.add_(y)  # read 2, write 1
        z.clamp_(0.0, 1.0)  # read 1, write 1 (z stays in [0, 1])
        torch.addcmul(y, z, x, value=0.25, out=x)  # read 3, write 1 (x stays in [0, 1.25])
        x.mul_(0.8)  # x back in [0, 1]
        acc = acc + z.sum() * 1e-9 + x.amax() * 1e-9  # two full reductions, kept on the device

    for _ in range(args.warmup):
        step()
    run.warmed_up()
    for _ in range(args.iters):
        step()
    run.finish(acc.item())


if __name__ == "__main__":
    main()
