#!/usr/bin/env python3
"""Times a kbench Triton example with triton.testing.do_bench: the peer number for kbench's
result of the same kernel, taken on the same GPU in the same session.

    python3 tools/triton/do_bench_peer.py tools/triton/examples/softmax_row.py \\
        --shape 4096 4096 --dtype f32

prints one JSON line (median, bytes, GB/s). do_bench clears the L2 between runs (it writes a
256 MB buffer), so compare with kbench's cold mode. The kernel is launched by Triton's JIT,
which may specialise more than the ahead-of-time cubin (dims divisible by 16); a gap between the
two numbers beyond noise is worth reading in that light. Needs Triton 3.x, PyTorch and a GPU.
"""

import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compile_for_kbench  # noqa: E402
import launch_grid  # noqa: E402
import triton_compat  # noqa: E402

# kbench generates inputs uniform in [-scale, scale] (Layout::input_scale).
INPUT_SCALE = {"softmax": 4.0, "add": 1.0}
ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2}


def model_bytes(desc, shape, dtype):
    """kbench's byte model for these examples' operations: every tensor has the shape's element
    count and crosses memory once (softmax: 2 x rows x cols; add: 3 x n)."""
    tensors = len(desc["inputs"]) + len(desc["outputs"])
    return tensors * math.prod(shape) * ELEMENT_BYTES[dtype]


def reference(desc, torch, inputs):
    if desc["operation"] == "softmax":
        return torch.softmax(inputs[0].double(), dim=1)
    if desc["operation"] == "add":
        return inputs[0].double() + inputs[1].double()
    raise ValueError(f"no reference for {desc['operation']}")


def keep_jit_ptx(cache_dir, ptx_out):
    """Copies the PTX Triton's JIT wrote into its cache for this launch to `ptx_out`, to read
    against the ahead-of-time PTX (what the JIT specialised: i32 dims, divisibility)."""
    found = []
    for root, _dirs, files in os.walk(cache_dir):
        found += [os.path.join(root, f) for f in files if f.endswith(".ptx")]
    if len(found) != 1:
        raise RuntimeError(f"--ptx-out: expected one PTX in Triton's cache, found {len(found)}")
    shutil.copyfile(found[0], ptx_out)


def aot_launcher(desc, dtype, grid):
    """Launches the ahead-of-time kernel compile_for_kbench.py builds for `desc` (the cubin
    kbench times, i64 or i32 dims alike) through Triton's own CompiledKernel launcher, so that
    do_bench times the same kernel as kbench, not the JIT's."""
    target = {"backend": "cuda", "arch": 90, "warp_size": 32}
    import torch
    major, minor = torch.cuda.get_device_capability()
    target["arch"] = major * 10 + minor
    compiled, _ = compile_for_kbench.compile_with_triton(desc, dtype, target)
    constexprs = list(desc["constexprs"].values())

    def launch(*args):
        # Triton 3.3+ launchers take every signature argument, constexprs included.
        compiled[grid](*args, *constexprs)

    return launch


def quiesced_median_ms(torch, launch, reps):
    """Times `launch` as kbench's cold mode does, not as do_bench does: the L2 is cleared by
    writing 256 MB (as do_bench), then the stream is synchronised and a sleep kernel holds it
    while the start event, the launch and the stop event are queued, so the launch starts on a
    quiet memory system with no host latency inside the events. do_bench records its start
    event right behind the clearing write, whose traffic may still be draining. With both
    numbers from one process on the same tensors, a gap between kbench and do_bench can be
    put on this difference or not."""
    cache = torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda")
    times = []
    for _ in range(reps):
        cache.zero_()
        torch.cuda.synchronize()
        torch.cuda._sleep(200_000)  # ~100 us at 2 GHz: longer than queueing the three below
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


# kbench's executor carves a job's tensors from one allocation, inputs then outputs, each
# starting on a 256-byte boundary (server/executor/cuda/prepared_variant.cc).
KBENCH_ALIGNMENT = 256


def slab_tensors(torch, desc, shape, torch_dtype, gap_bytes, fill):
    """The job's tensors laid out as kbench lays them out: one allocation, inputs then outputs,
    each aligned to 256 bytes, with `gap_bytes` more between consecutive tensors (0: kbench's
    own layout). Where the tensors sit relative to each other can move a kernel that re-reads
    its input from the L2, so this tells placement from harness."""
    count = math.prod(shape)
    element = torch.tensor([], dtype=torch_dtype).element_size()
    stride = -(-(count * element + gap_bytes) // KBENCH_ALIGNMENT) * KBENCH_ALIGNMENT
    names = len(desc["inputs"]) + len(desc["outputs"])
    slab = torch.empty(stride * names, dtype=torch.uint8, device="cuda")
    tensors = [slab[i * stride:i * stride + count * element].view(torch_dtype).view(shape)
               for i in range(names)]
    for t, source in zip(tensors, fill):
        t.copy_(source)
    return tensors[:len(desc["inputs"])], tensors[len(desc["inputs"]):]


# kbench's placements (server/executor/placements.cc): the first with no gap, the others a
# multiple of 256 bytes in [256 B, 8 MiB].
MAX_PLACEMENT_GAP = 8 << 20


def draw_gaps(count, seed):
    """Gaps for `count` placements drawn as kbench draws them (not the same values: kbench
    seeds its own generator), so that both harnesses sample the same distribution of layouts."""
    rng = random.Random(seed)
    return [0] + [rng.randint(1, MAX_PLACEMENT_GAP // KBENCH_ALIGNMENT) * KBENCH_ALIGNMENT
                  for _ in range(count - 1)]


def run(desc, shape, dtype, warmup_ms, rep_ms, ptx_out=None, aot=False, repeats=1,
        quiesced_reps=0, slab_gaps_kib=(), placements=0, placement_seed=1):
    triton_compat.require_triton()
    cache_dir = None
    if ptx_out:  # a fresh cache, so the launch below compiles and leaves its PTX there
        cache_dir = tempfile.mkdtemp(prefix="kbench-triton-cache-")
        os.environ["TRITON_CACHE_DIR"] = cache_dir
    import torch
    import triton

    if len(shape) != len(desc["dims"]):
        raise ValueError(f"--shape: {desc['operation']} takes dims {desc['dims']}")
    torch_dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    scale = INPUT_SCALE.get(desc["operation"], 1.0)
    inputs = [(torch.rand(shape, device="cuda") * 2 - 1).mul_(scale).to(torch_dtype)
              for _ in desc["inputs"]]
    outputs = [torch.empty(shape, device="cuda", dtype=torch_dtype) for _ in desc["outputs"]]
    dims = dict(zip(desc["dims"], shape))
    grid = launch_grid.grid(desc["grid"], dims)

    aot_launch = aot_launcher(desc, dtype, grid) if aot else None

    def launcher(ins, outs):
        if aot:
            return lambda: aot_launch(*ins, *outs, *shape)
        return lambda: desc["kernel"][grid](*ins, *outs, *shape, **desc["constexprs"],
                                            num_warps=desc["num_warps"],
                                            num_stages=desc["num_stages"])

    launch = launcher(inputs, outputs)
    launch()
    torch.cuda.synchronize()
    if ptx_out:
        keep_jit_ptx(cache_dir, ptx_out)
        shutil.rmtree(cache_dir, ignore_errors=True)
    want = reference(desc, torch, inputs)
    error = (torch.linalg.norm(outputs[0].double() - want) / torch.linalg.norm(want)).item()
    # Repeats on the same tensors: do_bench's spread within one process, to set beside the
    # spread between processes (fresh allocations) and between harnesses.
    medians_ms = [triton.testing.do_bench(launch, warmup=warmup_ms, rep=rep_ms,
                                          return_mode="median") for _ in range(repeats)]
    median_ms = medians_ms[0]
    nbytes = model_bytes(desc, shape, dtype)
    extra = {}
    if repeats > 1:
        extra["repeat_medians_us"] = [m * 1e3 for m in medians_ms]
    if quiesced_reps:
        extra["quiesced_median_us"] = quiesced_median_ms(torch, launch, quiesced_reps) * 1e3
    def slab_median_us(gap_bytes):
        ins, outs = slab_tensors(torch, desc, shape, torch_dtype, gap_bytes, inputs)
        median = triton.testing.do_bench(launcher(ins, outs), warmup=warmup_ms, rep=rep_ms,
                                         return_mode="median") * 1e3
        del ins, outs
        torch.cuda.empty_cache()  # the next slab is a fresh allocation, as a placement's is
        return median

    if slab_gaps_kib:
        extra["slab_medians_us"] = {str(g): slab_median_us(g * 1024) for g in slab_gaps_kib}
    if placements:
        medians = [slab_median_us(g) for g in draw_gaps(placements, placement_seed)]
        extra["placement_medians_us"] = medians
        extra["placements_median_us"] = sorted(medians)[len(medians) // 2]
        extra["placement_spread"] = (max(medians) - min(medians)) / extra["placements_median_us"]
    return {
        "tool": "triton.testing.do_bench",
        "launched": "the AOT kernel (CompiledKernel)" if aot else "Triton's JIT",
        "scalars": desc.get("scalar_type", "i64") if aot else "the JIT's",
        "operation": desc["operation"],
        "kernel": desc["name"],
        "shape": list(shape),
        "dtype": dtype,
        "median_us": median_ms * 1e3,
        "bytes": nbytes,
        "gb_per_s": nbytes / (median_ms * 1e-3) / 1e9,
        "relative_l2_error": error,
        "device": torch.cuda.get_device_name(),
        "triton": triton.__version__,
        "torch": torch.__version__,
    } | extra


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("module", help="a kbench Triton example (a file with a KBENCH dict)")
    p.add_argument("--shape", type=int, nargs="+", required=True)
    p.add_argument("--dtype", default="f32", choices=sorted(ELEMENT_BYTES))
    p.add_argument("--warmup-ms", type=float, default=25)
    p.add_argument("--rep-ms", type=float, default=100)
    p.add_argument("--ptx-out", help="also write the PTX Triton's JIT compiled to this file")
    p.add_argument("--aot", action="store_true",
                   help="time the ahead-of-time kernel kbench runs (compiled as "
                        "compile_for_kbench.py compiles it, with --specialize-for/--scalars) "
                        "through Triton's launcher, instead of the JIT's")
    p.add_argument("--specialize-for", metavar="SHAPE",
                   help="with --aot: as compile_for_kbench.py --specialize-for")
    p.add_argument("--scalars", choices=("i64", "i32"),
                   help="with --aot: as compile_for_kbench.py --scalars")
    p.add_argument("--repeats", type=int, default=1,
                   help="run do_bench this many times on the same tensors; all medians are "
                        "printed (repeat_medians_us), median_us is the first")
    p.add_argument("--quiesced", type=int, metavar="REPS", default=0,
                   help="also time REPS launches as kbench's cold mode does (L2 cleared, "
                        "stream synchronised, a sleep kernel ahead of the events): "
                        "quiesced_median_us")
    p.add_argument("--slab-gaps-kib", type=int, nargs="+", metavar="KIB", default=[],
                   help="also time the kernel on tensors laid out as kbench's executor lays "
                        "them out (one allocation, inputs then outputs, 256-byte aligned), "
                        "with KIB more between consecutive tensors; 0 is kbench's layout: "
                        "slab_medians_us by gap")
    p.add_argument("--placements", type=int, metavar="N", default=0,
                   help="also time the kernel at N placements drawn as kbench's --placements "
                        "draws them (kbench's layout, the first with no gap, the others with a "
                        "random gap): placement_medians_us, their median and spread")
    p.add_argument("--placement-seed", type=int, default=1,
                   help="seed of the gaps --placements draws")
    args = p.parse_args(argv)
    if (args.repeats < 1 or args.quiesced < 0 or args.placements < 0 or
            any(g < 0 for g in args.slab_gaps_kib)):
        p.error("--repeats must be at least 1, --quiesced, --placements and --slab-gaps-kib "
                "not negative")
    try:
        desc = compile_for_kbench.load_descriptor(args.module)
        if args.aot:
            desc = dict(desc, divisible_by_16=compile_for_kbench.divisible_names(
                desc, args.specialize_for, []),
                scalar_type=compile_for_kbench.scalar_type(args.scalars, args.specialize_for))
        compile_for_kbench.check_abi(desc, args.dtype)
        print(json.dumps(run(desc, args.shape, args.dtype, args.warmup_ms, args.rep_ms,
                             args.ptx_out, args.aot, args.repeats, args.quiesced,
                             args.slab_gaps_kib, args.placements, args.placement_seed)))
    except (compile_for_kbench.AbiError, RuntimeError, ValueError) as e:
        print(f"do_bench_peer: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
