#!/usr/bin/env python3
"""PyTorch baselines for the catalogue's targets (issue 4), timed with triton.testing.do_bench
(median, L2 flushed between reps), printed in kernels_bench's column format.

Usage: python3 torch_baseline.py [--compile] [GROUP ...]   (groups: copy elementwise softmax
reduce matmul mlp; default all)."""
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

COMPILE = "--compile" in sys.argv
GROUPS = [a for a in sys.argv[1:] if not a.startswith("--")] or [
    "copy", "elementwise", "softmax", "reduce", "matmul", "mlp"]
DEV = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def row(op, variant, dtype, shape, seconds, nbytes, flops):
    print(f"{op:<9} {variant:<16} {dtype:<5} {shape:<22} {seconds * 1e6:12.2f} "
          f"{nbytes / seconds * 1e-9:10.1f} {flops / seconds * 1e-12:10.2f}", flush=True)


def bench(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e-3


def elementwise():
    for shape in [(4096, 4096), (10000, 10000), (16384, 16384)]:
        x = torch.rand(shape, device=DEV) * 2 - 1
        y = torch.rand(shape, device=DEV) * 2 - 1
        n = x.numel()
        s = "x".join(map(str, shape))
        cases = [("square", lambda: x * x, 2, n), ("add", lambda: x + y, 3, n),
                 ("gelu", lambda: F.gelu(x, approximate="tanh"), 2, 8 * n),
                 ("gelu", lambda: F.gelu(x), 2, 8 * n)]
        names = ["eager", "eager", "eager_tanh", "eager_erf"]
        for (op, fn, k, fl), name in zip(cases, names):
            row(op, "torch_" + name, "f32", s, bench(fn), k * n * 4, fl)
        if COMPILE:
            sq = torch.compile(lambda a: a * a)
            ad = torch.compile(lambda a, b: a + b)
            gt = torch.compile(lambda a: F.gelu(a, approximate="tanh"))
            ge = torch.compile(lambda a: F.gelu(a))
            row("square", "torch_compile", "f32", s, bench(lambda: sq(x)), 2 * n * 4, n)
            row("add", "torch_compile", "f32", s, bench(lambda: ad(x, y)), 3 * n * 4, n)
            row("gelu", "torch_compile_tanh", "f32", s, bench(lambda: gt(x)), 2 * n * 4, 8 * n)
            row("gelu", "torch_compile_erf", "f32", s, bench(lambda: ge(x)), 2 * n * 4, 8 * n)


def copy():
    for mib in [64, 256, 1024]:
        n = mib * (1 << 20) // 4
        x = torch.rand(n, device=DEV)
        y = torch.empty_like(x)
        row("copy", "torch_copy_", "f32", str(n), bench(lambda: y.copy_(x)), 2 * n * 4, 0)


def softmax():
    for shape in [(4096, 4096), (8192, 1024), (1024, 32768), (10000, 10000)]:
        x = (torch.rand(shape, device=DEV) * 2 - 1) * 4
        n = x.numel()
        s = "x".join(map(str, shape))
        row("softmax", "torch_eager", "f32", s, bench(lambda: torch.softmax(x, dim=1)), 2 * n * 4,
            5 * n)
        if COMPILE:
            f = torch.compile(lambda a: torch.softmax(a, dim=1))
            row("softmax", "torch_compile", "f32", s, bench(lambda: f(x)), 2 * n * 4, 5 * n)


def reduce():
    for shape in [(4096, 4096), (16384, 16384)]:
        x = torch.rand(shape, device=DEV) * 2 - 1
        n = x.numel()
        s = "x".join(map(str, shape))
        row("reduce", "torch_sum_dim1", "f32", s, bench(lambda: x.sum(dim=1)),
            (n + shape[0]) * 4, n)
        row("reduce", "torch_sum_all", "f32", s, bench(lambda: x.sum()), n * 4, n)


def matmul():
    m = n = k = 4096
    for dtype, name in [(torch.float32, "f32"), (torch.float32, "tf32"), (torch.float16, "f16"),
                        (torch.bfloat16, "bf16")]:
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        a = torch.rand(m, k, device=DEV, dtype=dtype)
        b = torch.rand(k, n, device=DEV, dtype=dtype)
        es = a.element_size()
        row("matmul", "torch_matmul", name, f"{m}x{n}x{k}", bench(lambda: a @ b),
            (m * k + k * n + m * n) * es, 2 * m * n * k)
    torch.backends.cuda.matmul.allow_tf32 = False


class MLP(torch.nn.Module):
    """The lecture's run_mlp model: L x (Linear(dim, dim) -> GELU)."""

    def __init__(self, dim, layers):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(dim, dim) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = F.gelu(layer(x))
        return x


def mlp():
    for dim, layers, batch in [(256, 4, 256), (4096, 4, 4096)]:
        model = MLP(dim, layers).to(DEV)
        x = torch.randn(batch, dim, device=DEV)

        def step():
            model(x).mean().backward()

        flops = 6 * batch * dim * dim * layers
        nbytes = 4 * (batch * dim + layers * (dim * dim + dim) * 2)
        row("mlp", "torch_eager", "f32", f"{batch}x{dim},layers={layers},steps=1", bench(step),
            nbytes, flops)


for g in GROUPS:
    globals()[g]()
