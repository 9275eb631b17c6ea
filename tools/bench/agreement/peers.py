#!/usr/bin/env python3
"""The peer timers of the agreement panel (issue 29, item 4), on the GPU host: each case timed
R times by triton.testing.do_bench (L2 cleared between runs), do_bench_cudagraph and CUPTI's
kernel durations (torch.profiler's device events: the median of the kernels' summed duration
per launch). Prints JSON lines {"case", "method", "round", "seconds"} for agreement_table.py.

usage: peers.py --rounds R [--cases copy1g,sgemm4096,...]   (PyTorch 2.x, Triton 3.x, a GPU)
"""
import argparse
import re
import json
import statistics
import sys

import torch
import triton.testing

# case -> (title, builder); the titles are agreement_table's row names, run.sh uses the same.
CASES = {}


def case(name, title):
    def register(fn):
        CASES[name] = (title, fn)
        return fn
    return register


def rnd(*shape, dtype=torch.float32):
    g = torch.Generator(device="cuda").manual_seed(1)
    return (torch.rand(*shape, device="cuda", generator=g) * 2 - 1).to(dtype)


@case("copy1g", "copy 1 GiB")
def copy1g():
    n = (1 << 30) // 4
    a, b = rnd(n), torch.empty(n, device="cuda")
    return lambda: b.copy_(a)


@case("sgemm4096", "sgemm 4096^3")
def sgemm4096():
    torch.backends.cuda.matmul.allow_tf32 = False  # kbench's f32 cublas is a true sgemm
    a, b = rnd(4096, 4096), rnd(4096, 4096)
    c = torch.empty(4096, 4096, device="cuda")
    return lambda: torch.matmul(a, b, out=c)


@case("bf16gemm8192", "bf16 GEMM 8192^3")
def bf16gemm8192():
    a, b = rnd(8192, 8192, dtype=torch.bfloat16), rnd(8192, 8192, dtype=torch.bfloat16)
    c = torch.empty(8192, 8192, device="cuda", dtype=torch.bfloat16)
    return lambda: torch.matmul(a, b, out=c)


@case("softmax4096", "softmax 4096^2")
def softmax4096():
    a = rnd(4096, 4096) * 4
    out = torch.empty_like(a)
    return lambda: torch.softmax(a, dim=1, out=out)


@case("tiny5us", "~5 us softmax 256x1024")
def tiny5us():
    a = rnd(256, 1024) * 4
    out = torch.empty_like(a)
    return lambda: torch.softmax(a, dim=1, out=out)


def cupti_seconds(fn, launches=50):
    """Median over launches of the summed device time of the kernels one launch ran."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    per_launch = []
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(launches):
            fn()
            torch.cuda.synchronize()
            prof.step()
    # Kernel events carry their device duration (CUPTI); grouped per profiler step is not kept
    # by torch, so the launches' kernels are split evenly in order.
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    if not kernels:
        return 0.0
    per = max(1, len(kernels) // launches)
    for i in range(0, per * launches, per):
        per_launch.append(sum(e.device_time for e in kernels[i:i + per]) * 1e-6)  # us -> s
    return statistics.median(per_launch)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--match", default="", help="only the cases whose title matches this regex")
    args = p.parse_args(argv)
    for name in args.cases.split(","):
        title, build = CASES[name]
        if not re.search(args.match, title):
            continue
        fn = build()
        for r in range(args.rounds):
            timers = {
                "do_bench": lambda: triton.testing.do_bench(fn, return_mode="median") * 1e-3,
                "do_bench_cudagraph": lambda: triton.testing.do_bench_cudagraph(
                    fn, return_mode="median") * 1e-3,
                "cupti": lambda: cupti_seconds(fn),
            }
            for method, timer in timers.items():
                try:
                    seconds = timer()
                except Exception as e:  # a timer that fails is reported, the others go on
                    print("peers: %s %s round %d: %s" % (name, method, r, e), file=sys.stderr)
                    seconds = 0.0
                print(json.dumps({"case": title, "method": method, "round": r,
                                  "seconds": seconds}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
