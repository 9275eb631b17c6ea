#!/usr/bin/env python3
"""torch.distributed.all_reduce as the baseline of kbench's all-reduce (issue 30's proof).

Two ranks (torch.multiprocessing, NCCL backend, one GPU each), NVLS off as kbench's executor has
it. Per message size: warm-up, then CUDA events around ITERS back-to-back all_reduce calls on
each rank (ITERS from 20 to 200, so that the timed span is about 0.1 s), the time per call is the
slowest rank's; bus bandwidth with nccl-tests' formula (algbw = size / time, busbw = algbw *
2(n-1)/n). Writes one JSON line per size, in the format of kbench-collectives-bench --jsonl.

usage: collectives_torch.py --bytes 8192,32768,... [--dtype f32|bf16] [--jsonl FILE]
"""
import argparse
import json
import os
import socket
import sys

MIN_ITERS, MAX_ITERS, TARGET_SECONDS = 20, 200, 0.1
WARMUP_ITERS = 5
REPEATS = 5  # timed spans per size; the median span's time per call is reported


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def time_span(torch, dist, tensor, iters, device):
    """Seconds per call over `iters` back-to-back calls on this rank."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    dist.barrier(device_ids=[device])
    torch.cuda.synchronize(device)
    start.record()
    for _ in range(iters):
        dist.all_reduce(tensor)
    stop.record()
    torch.cuda.synchronize(device)
    return start.elapsed_time(stop) * 1e-3 / iters


def slowest(torch, dist, seconds, device):
    t = torch.tensor([seconds], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def rank_main(rank, world, port, sizes, dtype_name, out_path):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, device_id=torch.device("cuda", rank))
    dtype = torch.bfloat16 if dtype_name == "bf16" else torch.float32
    element = 2 if dtype_name == "bf16" else 4
    lines = []
    for size in sizes:
        count = max(1, size // element)
        gen = torch.Generator(device=f"cuda:{rank}").manual_seed(1000 + rank)
        tensor = (torch.rand(count, generator=gen, device=f"cuda:{rank}") * 2 - 1).to(dtype)
        # torch's all_reduce is in place: the values double per call and reach inf after about
        # 128 calls; NCCL's adds take the same time on any value, so the times are unaffected.
        for _ in range(WARMUP_ITERS):
            dist.all_reduce(tensor)
        probe = slowest(torch, dist, time_span(torch, dist, tensor, MIN_ITERS, rank), rank)
        iters = int(min(MAX_ITERS, max(MIN_ITERS, TARGET_SECONDS / max(probe, 1e-9))))
        spans = sorted(slowest(torch, dist, time_span(torch, dist, tensor, iters, rank), rank)
                       for _ in range(REPEATS))
        seconds = spans[len(spans) // 2]
        algbw = count * element / seconds
        factor = 2.0 * (world - 1) / world
        lines.append({"source": "torch", "op": "all_reduce", "variant": "torch.distributed",
                      "dtype": dtype_name, "world_size": world, "message_bytes": count * element,
                      "count": count, "median_seconds": seconds, "algbw": algbw,
                      "busbw": algbw * factor, "bus_factor": factor, "iters": iters,
                      "torch": torch.__version__,
                      "nccl": ".".join(map(str, torch.cuda.nccl.version()))})
    if rank == 0:
        with open(out_path, "a") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")
                print(f"torch.distributed  {line['message_bytes']:>12} {line['count']:>12} "
                      f"{line['median_seconds'] * 1e6:11.2f} {line['algbw'] / 1e9:10.2f} "
                      f"{line['busbw'] / 1e9:10.2f}  x{line['iters']}", flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bytes", required=True, help="message sizes, comma-separated")
    parser.add_argument("--dtype", choices=["f32", "bf16"], default="f32")
    parser.add_argument("--jsonl", default="collectives_torch.jsonl")
    parser.add_argument("--world", type=int, default=2)
    args = parser.parse_args()
    sizes = [int(s) for s in args.bytes.split(",") if s]
    # The same condition as kbench's executor (server/executor/cuda/gang.cc): no NVLink multicast.
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    import torch
    import torch.multiprocessing as mp

    if torch.cuda.device_count() < args.world:
        sys.exit(f"collectives_torch: {args.world} GPUs needed, {torch.cuda.device_count()} seen")
    mp.spawn(rank_main, args=(args.world, free_port(), sizes, args.dtype, args.jsonl),
             nprocs=args.world, join=True)


if __name__ == "__main__":
    main()
