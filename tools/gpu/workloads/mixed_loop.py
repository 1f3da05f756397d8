"""Acceptance workload (c): a training-like loop mixing cuBLAS matmuls, elementwise kernels and a
`.item()` every 10 steps (a hidden synchronization). See common.py for the flags.

Must never: change its CUDA work with the profiler flags (runs must stay comparable).
"""

import common


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=300)
    run = common.Run(args, "mixed_loop")
    torch = run.torch
    dev = torch.device("cuda")
    x = torch.randn(256, 1024, device=dev)
    w1 = torch.randn(1024, 1024, device=dev) / 32
    w2 = torch.randn(1024, 512, device=dev) / 32
    checksum = 0.0

    def step(i):
        nonlocal x, checksum
        h = torch.relu(x @ w1) * 0.5 + 0.1
        out = h @ w2
        loss = out.pow(2).mean()
        x = torch.tanh(x + 0.01 * out.sum(dim=1, keepdim=True))
        if i % 10 == 0:
            checksum += loss.item()

    for i in range(args.warmup):
        step(i)
    run.warmed_up()
    for i in range(args.iters):
        step(i)
    run.finish(checksum + x.sum().item())


if __name__ == "__main__":
    main()
