#!/usr/bin/env python3
"""The peer timers of the agreement panel (issue 29, item 4), on the GPU host: each case timed
R times by triton.testing.do_bench (L2 cleared between runs), do_bench_cudagraph and CUPTI's
kernel durations (torch.profiler's device events: the median of the kernels' summed duration
per launch). Prints JSON lines {"case", "method", "round", "seconds"} for agreement_table.py.

The softmax cases time the kernel kbench times: the cubin of examples/my_softmax.cu that kbench
runs as a user kernel (--softmax-cubin), launched through the driver API (cubin_kernel.py), so
that a difference is the timers', not two implementations'. Copy and the GEMMs time PyTorch's
calls (torch's copy_ against kbench's vectorized copy; cuBLAS through either).

usage: peers.py --rounds R [--first-round N] [--cases copy1g,...] [--softmax-cubin FILE]
   (PyTorch 2.x, Triton 3.x, a GPU)
"""
import argparse
import json
import os
import re
import statistics
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubin_kernel  # noqa: E402

# Set by main from --softmax-cubin: examples/my_softmax.cu compiled for this GPU.
SOFTMAX_CUBIN = None

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


def kbench_softmax(rows, cols):
    """examples/my_softmax.cu's kernel as kbench launches it (--grid rows --block 256; the ABI:
    input, output, rows, cols), checked against a float64 softmax before it is timed."""
    import ctypes
    if SOFTMAX_CUBIN is None:
        raise RuntimeError("the softmax cases need --softmax-cubin")
    a = rnd(rows, cols) * 4  # kbench's softmax inputs: uniform in [-4, 4]
    out = torch.full_like(a, float("nan"))  # poisoned: a kernel that skips a row fails
    kernel = cubin_kernel.CubinKernel(SOFTMAX_CUBIN, "softmax_kernel")
    launch = kernel.launcher((rows, 1, 1), (256, 1, 1),
                             [ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(out.data_ptr()),
                              ctypes.c_longlong(rows), ctypes.c_longlong(cols)],
                             lambda: torch.cuda.current_stream().cuda_stream)
    launch()
    torch.cuda.synchronize()
    want = torch.softmax(a.double(), dim=1)
    error = (torch.linalg.norm(out.double() - want) / torch.linalg.norm(want)).item()
    if not error < 1e-5:
        raise RuntimeError("the cubin's softmax is wrong: relative L2 error %g" % error)
    launch._keep_tensors = (a, out)
    return launch


@case("softmax4096", "softmax 4096^2")
def softmax4096():
    return kbench_softmax(4096, 4096)


@case("tiny5us", "~5 us softmax 256x1024")
def tiny5us():
    return kbench_softmax(256, 1024)


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
    p.add_argument("--first-round", type=int, default=0,
                   help="the first round's number (run.sh runs one round at a time, between "
                        "kbench's, so that neither side meets the GPU hotter than the other)")
    p.add_argument("--softmax-cubin", help="examples/my_softmax.cu compiled for this GPU")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--match", default="", help="only the cases whose title matches this regex")
    args = p.parse_args(argv)
    global SOFTMAX_CUBIN
    SOFTMAX_CUBIN = args.softmax_cubin
    for name in args.cases.split(","):
        title, build = CASES[name]
        if not re.search(args.match, title):
            continue
        try:
            fn = build()
        except Exception as e:  # a case that cannot be set up is reported, the others go on
            print("peers: %s: %s" % (name, e), file=sys.stderr)
            continue
        for r in range(args.first_round, args.first_round + args.rounds):
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
