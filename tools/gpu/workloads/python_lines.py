"""Acceptance workload (issue 8): a PyTorch training-like loop whose hidden synchronizations sit on
known lines (marker comments `# STALL:name`) and whose phases are torch.cuda.nvtx ranges, so that
python_check.py can verify that brrr names the Python line of every stall and reports each range
as a phase with its exact call count. See common.py for the flags.

Must never: move a marked call off its marker line, or change its CUDA work with the flags.
"""

import io
import contextlib

import common


def forward(torch, x, w):
    torch.cuda.nvtx.range_push("forward")
    h = torch.relu(x @ w)
    out = h * 0.5 + 0.1
    torch.cuda.nvtx.range_pop()
    return out


def backward_like(torch, out, w):
    torch.cuda.nvtx.range_push("backward")
    g = (out.t() @ out) * 1e-4
    w.sub_(g[: w.shape[0], : w.shape[1]] * 1e-3)
    torch.cuda.nvtx.range_pop()


def keep_device_busy(torch):
    """Queues a kernel that spins for about 1 ms, so that the marked call after it waits for the
    device: on a real GPU the step's own kernels finish within microseconds, and a read-back of
    work already done returns at once (no stall; seen on an H200, where print(tensor) right after
    .cpu() blocked for less than BRRR_PY_STALL_US)."""
    torch.cuda._sleep(2_000_000)


def log_loss(torch, out):
    keep_device_busy(torch)
    return out.pow(2).mean().item()  # STALL:item


def fetch_logits(torch, out):
    keep_device_busy(torch)
    return out[:4, :4].cpu()  # STALL:cpu


def show(torch, out):
    keep_device_busy(torch)
    with contextlib.redirect_stdout(io.StringIO()):
        print(out[:2, :2])  # STALL:print


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=50)
    run = common.Run(args, "python_lines")
    torch = run.torch
    dev = torch.device("cuda")
    x = torch.randn(512, 512, device=dev)
    w = torch.randn(512, 512, device=dev) / 32
    checksum = 0.0
    for i in range(args.warmup + args.iters):
        if i == args.warmup:
            run.warmed_up()
        torch.cuda.nvtx.range_push("step")
        out = forward(torch, x, w)
        backward_like(torch, out, w)
        checksum += log_loss(torch, out)
        checksum += float(fetch_logits(torch, out).sum())
        if i % 10 == 0:
            show(torch, out)
        torch.cuda.nvtx.range_pop()
    run.finish(checksum)
    print(f"steps={args.warmup + args.iters}")


if __name__ == "__main__":
    main()
