"""A training loop shaped like a PyTorch one, for brrr's Python end-to-end tests.

Each step is an NVTX range `step` with nested `forward`, `backward` and `optimizer` ranges (as
torch.cuda.nvtx.range_push/range_pop mark them), a known number of kernel launches in each, a
pageable "non_blocking" copy of the next batch after the forward pass, and a loss logged with an
`.item()`-like D2H copy a few Python frames deep. The test finds the lines it expects through the
marker comments (`# STALL:...`, `# LAUNCH:...`, `# CALL:...`), never through line numbers.

Must never: change a marked line without the test's expectations following (they are derived from
the markers), or make CUDA calls other than the ones counted here.

Usage: train_loop.py STEPS FORWARD_LAUNCHES BACKWARD_LAUNCHES OPTIMIZER_LAUNCHES
"""
import sys

import minitorch as mt

BATCH_FLOATS = 1024


def forward(weights, launches):
    mt.nvtx_push("forward")
    for _ in range(launches):
        mt.launch_add(weights)  # LAUNCH:forward
    mt.nvtx_pop()


def backward(grads, launches):
    mt.nvtx_push("backward")
    for _ in range(launches):
        mt.launch_add(grads)  # LAUNCH:backward
    mt.nvtx_pop()


def optimizer_step(weights, launches):
    mt.nvtx_push("optimizer")
    for _ in range(launches):
        mt.launch_add(weights)  # LAUNCH:optimizer
    mt.nvtx_pop()


def load_batch(batch, host_batch):
    # A non_blocking copy from pageable memory: the host waits for the stream's queued work.
    mt.copy_async_pageable(batch, host_batch)  # STALL:pageable


def log_loss(loss, history):
    value = mt.item(loss)  # STALL:item
    history.append(value)


def report_metrics(loss, history):
    log_loss(loss, history)  # CALL:log_loss


def train_step(model, counts, history):
    weights, grads, loss, batch, host_batch = model
    mt.nvtx_push("step")
    forward(weights, counts[0])
    load_batch(batch, host_batch)  # CALL:load_batch
    backward(grads, counts[1])
    optimizer_step(weights, counts[2])
    report_metrics(loss, history)  # CALL:report_metrics
    mt.nvtx_pop()


def train(steps, counts):
    model = (mt.alloc(BATCH_FLOATS), mt.alloc(BATCH_FLOATS), mt.alloc(1),
             mt.alloc(BATCH_FLOATS), bytes(4 * BATCH_FLOATS))
    history = []
    for _ in range(steps):
        train_step(model, counts, history)  # CALL:train_step
    return history


def main(argv):
    steps, forward_launches, backward_launches, optimizer_launches = (int(a) for a in argv[1:5])
    history = train(steps, (forward_launches, backward_launches, optimizer_launches))  # CALL:train
    print("steps", len(history))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))  # CALL:main
