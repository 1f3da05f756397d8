"""Acceptance workload (e): a few kernels captured once in a torch.cuda.CUDAGraph and replayed
--iters times, with an ordinary kernel between replays. See common.py for the flags.

Must never: change its CUDA work with the profiler flags (runs must stay comparable).
"""

import common


def main():
    args = common.parse_args(__doc__.splitlines()[0], default_iters=500)
    run = common.Run(args, "graph_replay")
    torch = run.torch
    static_x = torch.randn(512, 512, device="cuda")
    w = torch.randn(512, 512, device="cuda") / 23

    def step():
        h = torch.relu(static_x @ w)
        return torch.sigmoid(h * 0.5 + 0.25).sum(dim=0)

    side = torch.cuda.Stream()  # warm-up on a side stream, as torch.cuda.graph requires
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(max(args.warmup, 3)):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = step()
    run.warmed_up()
    for _ in range(args.iters):
        graph.replay()
        static_x.mul_(0.999)
    run.finish(static_y.sum().item())


if __name__ == "__main__":
    main()
