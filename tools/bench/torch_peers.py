#!/usr/bin/env python3
"""PyTorch peers of kbench cases, timed with triton.testing.do_bench (median, L2 flushed).

Reads the cases file (name|peer|kbctl args) and prints a JSON object: peer -> {eager_ms,
compiled_ms}. A peer is OP:DTYPE:D1xD2[xD3]; ops: copy square add gelu_tanh gelu_erf softmax
rowsum matmul mlp.
"""
import json
import sys

import torch
import torch.nn.functional as F
import triton.testing

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "tf32": torch.float32}


def make(op, dtype, dims):
    dev = "cuda"
    dt = DTYPES[dtype]
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    g = torch.Generator(device=dev).manual_seed(1)
    rnd = lambda *s: (torch.rand(*s, device=dev, generator=g, dtype=torch.float32) * 2 - 1).to(dt)
    n = 1
    for d in dims:
        n *= d
    if op == "copy":
        a, b = rnd(n), torch.empty(n, device=dev, dtype=dt)
        return (lambda: b.copy_(a)), None
    if op == "square":
        a, b = rnd(n), torch.empty(n, device=dev, dtype=dt)
        return (lambda: torch.mul(a, a, out=b)), (torch.compile(lambda x: x * x), (a,))
    if op == "add":
        a, b, c = rnd(n), rnd(n), torch.empty(n, device=dev, dtype=dt)
        return (lambda: torch.add(a, b, out=c)), (torch.compile(lambda x, y: x + y), (a, b))
    if op in ("gelu_tanh", "gelu_erf"):
        approx = "tanh" if op == "gelu_tanh" else "none"
        a = rnd(n) * 3
        f = lambda x: F.gelu(x, approximate=approx)
        return (lambda: f(a)), (torch.compile(f), (a,))
    if op == "softmax":
        a = rnd(dims[0], dims[1]) * 4
        f = lambda x: torch.softmax(x, dim=1)
        return (lambda: f(a)), (torch.compile(f), (a,))
    if op == "rowsum":
        a = rnd(dims[0], dims[1])
        f = lambda x: x.sum(dim=1)
        return (lambda: f(a)), (torch.compile(f), (a,))
    if op == "matmul":
        m, nn, k = dims
        a, b = rnd(m, k), rnd(k, nn)
        return (lambda: torch.matmul(a, b)), None
    if op == "mlp":
        dim, layers, batch = dims
        x = rnd(batch, dim)
        ws = [(rnd(dim, dim) / dim ** 0.5).requires_grad_() for _ in range(layers)]
        bs = [(rnd(dim) * 0.1).requires_grad_() for _ in range(layers)]
        def step():
            h = x
            for w, b in zip(ws, bs):
                h = F.gelu(torch.addmm(b, h, w))
            h.sum().backward()
        return step, None
    raise ValueError(op)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")


def main():
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__, "peers": {}}
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        _, peer, _ = line.split("|", 2)
        if not peer or peer in out["peers"]:
            continue
        op, dtype, shape = peer.split(":")
        dims = [int(d) for d in shape.split("x")]
        eager, compiled = make(op, dtype, dims)
        r = {"eager_ms": bench(eager)}
        if compiled is not None:
            f, args = compiled
            f(*args)  # compile outside the timed region
            r["compiled_ms"] = bench(lambda: f(*args))
        out["peers"][peer] = r
        print(peer, r, file=sys.stderr)
        torch.cuda.empty_cache()
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
