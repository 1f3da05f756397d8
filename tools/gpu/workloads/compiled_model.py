"""Acceptance workload (d): a small MLP compiled with torch.compile, so most elementwise work runs
as Triton kernels launched by the driver API (matmuls stay cuBLAS). See common.py for the flags.

Must never: change its CUDA work with the profiler flags (runs must stay comparable).
"""

import common


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=200)
    run = common.Run(args, "compiled_model")
    torch = run.torch
    nn = torch.nn
    model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 512),
                          nn.LayerNorm(512)).cuda()
    compiled = torch.compile(model)
    x = torch.randn(128, 512, device="cuda")
    with torch.no_grad():
        for _ in range(max(args.warmup, 2)):  # the first call compiles
            y = compiled(x)
        run.warmed_up()
        for _ in range(args.iters):
            y = compiled(x)
            x = x + 0.001 * y
    run.finish(x.sum().item())


if __name__ == "__main__":
    main()
