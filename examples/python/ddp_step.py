#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small PyTorch DistributedDataParallel training step for multi-GPU recordings: an MLP
whose gradients fill several DDP buckets, so NCCL all-reduces of early buckets can run while
the backward pass still computes the later ones. Launch one process per GPU with torchrun:

    warpscope-cli record -o ddp.wscope -- \\
        torchrun --standalone --nproc_per_node 2 examples/python/ddp_step.py

Each rank prints one RESULT line. Correctness first: every rank trains on different data, so
its parameters stay equal to the other ranks' only if the all-reduce really averaged the
gradients; the script checks that after the timed steps (and fails otherwise).

NVLink SHARP / multicast stay off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1): the lent H200 machines do not allow multicast objects.
"""
import argparse
import os
import time

for _var, _value in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                     ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ.setdefault(_var, _value)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--width", type=int, default=4096)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--bucket-mb", type=float, default=25.0, help="DDP bucket_cap_mb")
    p.add_argument("--backend", choices=("nccl", "gloo"), default="nccl")
    p.add_argument("--one-gpu", action="store_true",
                   help="every rank on GPU 0 (with --backend gloo: NCCL refuses two ranks on one GPU); "
                        "records a multi-process session on a one-GPU machine, without NCCL kernels")
    args = p.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    gpu = 0 if args.one_gpu else local_rank
    torch.cuda.set_device(gpu)
    dev = torch.device("cuda", gpu)
    if args.backend == "nccl":
        try:  # device_id (torch >= 2.3) binds the communicator to this GPU up front
            dist.init_process_group("nccl", device_id=dev)
        except TypeError:
            dist.init_process_group("nccl")
    else:
        dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)  # same initial weights everywhere (DDP broadcasts rank 0's anyway)
    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(dev, dtype=torch.bfloat16)
    ddp = DDP(model, device_ids=[gpu], bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)

    gen = torch.Generator(device=dev)
    gen.manual_seed(1000 + rank)  # different data per rank
    x = torch.randn(args.batch, args.width, device=dev, dtype=torch.bfloat16, generator=gen)
    y = torch.randn(args.batch, args.width, device=dev, dtype=torch.bfloat16, generator=gen)

    def step(i):
        torch.cuda.nvtx.range_push(f"step {i}")
        with torch.cuda.nvtx.range("forward"):
            loss = torch.nn.functional.mse_loss(ddp(x), y)
        with torch.cuda.nvtx.range("backward"):  # DDP's all-reduces are launched in here
            loss.backward()
        with torch.cuda.nvtx.range("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.nvtx.range_pop()
        return loss

    for i in range(args.warmup):
        step(-1 - i)
    torch.cuda.synchronize()
    dist.barrier()
    t0 = time.perf_counter()
    for i in range(args.steps):
        loss = step(i)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0

    # Equal parameters on every rank although every rank saw different data.
    flat = torch.cat([q.detach().float().flatten() for q in model.parameters()])
    mine = torch.stack([flat.sum(), flat.abs().sum(), flat[:: 997].square().sum()]).double()
    every = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(every, mine)
    equal = all(torch.equal(every[0], e) for e in every)
    print(f"RESULT rank={rank} world={world} steps={args.steps} ms_per_step={dt / args.steps * 1e3:.3f} "
          f"loss={loss.item():.5f} params_equal={int(equal)}", flush=True)
    dist.destroy_process_group()
    if not equal:
        raise SystemExit(f"rank {rank}: parameters differ between ranks after DDP steps")


if __name__ == "__main__":
    main()
