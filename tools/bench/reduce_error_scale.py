#!/usr/bin/env python3
"""How far a correct float32 sum lands from its float64 reference, relative to the sum itself
and to sqrt(sum x^2) (reduce's error scale), against dropping one term: the numbers behind
kernels/ops/reduce.cc's error_scale. Sums as reduce's full_host does: f32, chunks of 1024.
usage: /usr/bin/python3 tools/bench/reduce_error_scale.py [DRAWS] [N]"""
import sys

import numpy as np


def chunked_f32_sum(x):
    acc = np.zeros(x.size // 1024, dtype=np.float32)
    chunks = x.reshape(-1, 1024)
    for i in range(1024):
        acc = (acc + chunks[:, i]).astype(np.float32)
    total = np.float32(0)
    for c in acc:
        total = np.float32(total + c)
    return float(total)


def main():
    draws = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 20
    rng = np.random.default_rng(1)
    rows = []
    for _ in range(draws):
        x = rng.uniform(-1, 1, n).astype(np.float32)
        ref = x.astype(np.float64).sum()
        err = abs(chunked_f32_sum(x) - ref)
        scale = np.sqrt((x.astype(np.float64) ** 2).sum())
        rows.append((err / scale, err / abs(ref), np.abs(x).mean() / scale))
    r = np.array(rows)
    print(f"{draws} draws of {n} uniform terms: error/sqrt(sum x^2) median {np.median(r[:, 0]):.2e}"
          f" max {r[:, 0].max():.2e}; error/|sum| max {r[:, 1].max():.2e};"
          f" one dropped term/sqrt(sum x^2) {r[:, 2].mean():.2e} (f32 tolerance 1e-5)")


if __name__ == "__main__":
    main()
