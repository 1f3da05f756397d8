"""Counters workload (issue 11), matmul-heavy: large square matmuls (bf16 by default, cuBLAS
Tensor Core kernels) in a loop with no synchronization, so the device is busy with compute-bound
kernels; --result gets the loop time and steps per second. See common.py for the common flags.
The default 2500 steps of two 8192^3 bf16 GEMMs (2.2 TFLOP a step) take about 8 s on an H100, so
that the device is busy for far more than the 70 % of the steady state a device-bound verdict needs
even with a second or two of CUDA context and cuBLAS start-up inside it.

Must never: synchronize or copy to the host inside the timed loop (the run must be device-bound),
or change its CUDA work with the profiler flags.
"""

import common


def add_flags(p):
    p.add_argument("--size", type=int, default=8192, help="n of the n x n matrices")
    p.add_argument("--dtype", choices=("bf16", "fp16", "fp32"), default="bf16")


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=2500, extra=add_flags)
    run = common.Run(args, "matmul_loop")
    torch = run.torch
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    n = args.size
    # Scaled so that products stay near unit size: no inf/nan whatever the loop length.
    a = (torch.randn(n, n, device="cuda") / n ** 0.5).to(dtype)
    b = (torch.randn(n, n, device="cuda") / n ** 0.5).to(dtype)
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    d = torch.empty(n, n, device="cuda", dtype=dtype)

    def step():
        torch.matmul(a, b, out=c)  # one GEMM kernel each, same shapes every step
        torch.matmul(c, a, out=d)

    for _ in range(args.warmup):
        step()
    run.warmed_up()
    for _ in range(args.iters):
        step()
    run.finish(d.float().abs().mean().item())


if __name__ == "__main__":
    main()
