#!/usr/bin/python3
"""Independent oracle of the catalogue's float64 references and cost models (issue 16, item 1).

Runs reference_dump (tests/oracle/reference_dump.cc) into a temporary directory, then recomputes
every operation from its textbook definition with NumPy alone (no code shared with kernels/ops),
compares in float64 under per-operation bounds stated below, and checks each variant's byte and
FLOP counts against counts derived here from the shapes. Prints the worst element of every
comparison that fails, and a one-line summary per operation. Exit status 0 only if all agree.

Run by ctest as /usr/bin/python3 (Debian's python3-numpy); see tests/oracle/CMakeLists.txt.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

EPS = np.finfo(np.float64).eps  # 2^-52

# Bytes per element of each dtype name (kernels/dtype.h): IEEE binary32, binary16, bfloat16;
# tf32 is f32 storage computed with TF32 tensor-core math.
STORAGE_BYTES = {"f32": 4, "tf32": 4, "f16": 2, "bf16": 2}


class Expected:
    """One output's value from NumPy and its per-element absolute error bound."""

    def __init__(self, value, bound):
        self.value = np.asarray(value, dtype=np.float64).ravel()
        bound = np.asarray(bound, dtype=np.float64)
        self.bound = bound.ravel() if bound.size > 1 else np.full(self.value.shape, float(bound))


# ---- textbook definitions ------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_erf(x):
    """GELU(x) = x Phi(x), Phi the standard normal CDF (Hendrycks & Gimpel 2016, eq. 1)."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    """The tanh approximation of GELU (Hendrycks & Gimpel 2016, section 2)."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def gelu_erf_derivative(z):
    """d/dz z Phi(z) = Phi(z) + z phi(z), phi the standard normal density."""
    density = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return 0.5 * (1.0 + _erf(z / math.sqrt(2.0))) + z * density


def softmax_rows(x):
    """softmax(x)_j = exp(x_j - max x) / sum_k exp(x_k - max x), per row (Goodfellow et al.
    2016, section 4.1: subtracting the max leaves the value unchanged and cannot overflow)."""
    shifted = x - x.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)


def matmul(a, b):
    """C_ij = sum_k A_ik B_kj, written as an einsum so no BLAS is involved."""
    return np.einsum("ik,kj->ij", a, b, optimize=False)


def mlp_forward(x, weights, biases):
    """The catalogue's mlp (kernels/ops/mlp.cc's description): layer l computes
    z = h W_l^T / sqrt(dim) + b_l (nn.Linear with W stored out x in, row-major) and
    h' = GELU_erf(z). Returns the pre-activations and the activations h_0 = x .. h_L."""
    dim = x.shape[1]
    hs, zs = [x], []
    for w, b in zip(weights, biases):
        z = matmul(hs[-1], w.T) / math.sqrt(dim) + b
        zs.append(z)
        hs.append(gelu_erf(z))
    return zs, hs


def mlp_gradients(x, weights, biases):
    """Gradients of loss = mean(h_L) by the chain rule, layer by layer backwards."""
    batch, dim = x.shape
    zs, hs = mlp_forward(x, weights, biases)
    g = np.full_like(hs[-1], 1.0 / (batch * dim))  # d mean / d h_L
    grad_w, grad_b = [None] * len(weights), [None] * len(weights)
    for l in reversed(range(len(weights))):
        dz = g * gelu_erf_derivative(zs[l])
        grad_b[l] = dz.sum(axis=0)
        grad_w[l] = matmul(dz.T, hs[l]) / math.sqrt(dim)
        g = matmul(dz, weights[l]) / math.sqrt(dim)
    return hs[-1], np.stack(grad_w), np.stack(grad_b)


# ---- per-operation oracles -----------------------------------------------------------------------
# Each takes (shape, params, variant, inputs by name) and returns {output name: Expected}.
# Bounds: copy/square/add are single correctly rounded IEEE operations on the same operands, so
# both sides give the same double (bound 0). Elsewhere the bound follows the rounding-error
# analysis of the computation (Higham, Accuracy and Stability of Numerical Algorithms, 2002),
# counted once for each side since the two sum in different orders.


def oracle_copy(shape, params, variant, x):
    return {"out": Expected(x["in"], 0.0)}


def oracle_square(shape, params, variant, x):
    return {"out": Expected(x["in"] * x["in"], 0.0)}


def oracle_add(shape, params, variant, x):
    return {"out": Expected(x["a"] + x["b"], 0.0)}


def oracle_gelu(shape, params, variant, x):
    # The variant's name says the form (kernels/ops/gelu.cc). A few ulps from tanh/erf/exp on
    # each side, amplified by the cancellation in 1 + tanh (or 1 + erf) in the negative tail:
    # at x = -3 (the inputs' edge) 1 + tanh is 2.4e-3, a factor ~400, so relative 1e-12 leaves
    # ~20x room; a wrong constant (0.044715, sqrt(2/pi), 1/sqrt 2) errs by >1e-6.
    if variant.startswith("erf"):
        want = gelu_erf(x["in"])
    elif variant.startswith("tanh"):
        want = gelu_tanh(x["in"])
    else:
        raise ValueError(f"gelu variant {variant!r} names neither form (tanh_* or erf_*)")
    return {"out": Expected(want, 1e-12 * np.abs(want) + 1e-300)}


def oracle_softmax(shape, params, variant, x):
    rows, cols = shape
    want = softmax_rows(x["in"].reshape(rows, cols))
    # Every term is positive, so the row sum errs by at most (cols - 1) eps relative on each side
    # (Higham eq. 4.4); exp and the division add a few ulps.
    return {"out": Expected(want, (2 * cols + 8) * EPS * want)}


def oracle_reduce(shape, params, variant, x):
    rows, cols = shape
    m = x["in"].reshape(rows, cols)
    # A sum of n terms errs by at most (n - 1) eps sum|x_i| (Higham eq. 4.4), once per side.
    if variant.startswith("rows"):
        return {"row_sums": Expected(m.sum(axis=1), 2 * cols * EPS * np.abs(m).sum(axis=1))}
    if variant.startswith("full"):
        n = rows * cols
        return {"sum": Expected([m.sum()], 2 * (n + 1) * EPS * np.abs(m).sum())}
    raise ValueError(f"reduce variant {variant!r} is neither rows_* nor full_*")


def oracle_matmul(shape, params, variant, x):
    m, n, k = shape
    a, b = x["a"].reshape(m, k), x["b"].reshape(k, n)
    # An inner product of length k errs by at most k eps (|a|^T |b|) (Higham eq. 3.5).
    return {"c": Expected(matmul(a, b), 2 * k * EPS * matmul(np.abs(a), np.abs(b)) + 1e-300)}


def oracle_mlp(shape, params, variant, x):
    batch, dim = shape
    layers, steps = params["layers"], params["steps"]
    inp = x["x"].reshape(batch, dim)
    w = x["weights"].reshape(layers, dim, dim)
    b = x["biases"].reshape(layers, dim)
    y, gw, gb = mlp_gradients(inp, w, b)
    # Steps do not update the weights: each adds the same gradients (PyTorch's .grad
    # accumulation), so `steps` steps give `steps` times them.
    gw, gb = steps * gw, steps * gb

    # Products of length <= max(batch, dim) chained through <= 4 layers err near
    # (batch + dim) * layers * eps ~ 1e-14 of the tensor's magnitude (measured: 1e-15); bias
    # gradients cancel in their batch sums, so the bound scales with the tensor's largest element,
    # not per element. A wrong scale, transpose or GELU derivative errs by O(1) of it.

    def scaled(v):
        return Expected(v, 1e-12 * np.abs(v).max() + 1e-300)

    return {"y": scaled(y), "grad_weights": scaled(gw), "grad_biases": scaled(gb)}


# ---- cost models, derived from each definition ---------------------------------------------------
# Each returns (bytes, flops) for (shape, params, variant, bytes per element).


def elements(shape):
    return math.prod(shape)


def cost_copy(shape, params, variant, e):
    return 2 * elements(shape) * e, 0  # read once, written once; no arithmetic


def cost_square(shape, params, variant, e):
    return 2 * elements(shape) * e, elements(shape)  # one multiply per element


def cost_add(shape, params, variant, e):
    return 3 * elements(shape) * e, elements(shape)  # two operands read, one add per element


def cost_gelu(shape, params, variant, e):
    # Bytes: the fused minimum. FLOPs: the catalogue's convention of 8 per element for either
    # form (docs in kernels/ops/gelu.cc), whatever tanh or erf costs in instructions.
    return 2 * elements(shape) * e, 8 * elements(shape)


def cost_softmax(shape, params, variant, e):
    # Per element: a max comparison, a subtraction, an exp, an add to the sum, a division.
    return 2 * elements(shape) * e, 5 * elements(shape)


def cost_reduce(shape, params, variant, e):
    rows, cols = shape
    sums = rows if variant.startswith("rows") else 1
    return (rows * cols + sums) * e, rows * cols  # one add per element read


def cost_matmul(shape, params, variant, e):
    m, n, k = shape
    return (m * k + k * n + m * n) * e, 2 * m * n * k  # a multiply and an add per (i, j, k)


def cost_mlp(shape, params, variant, e):
    batch, dim = shape
    layers, steps = params["layers"], params["steps"]
    weights_and_biases = layers * (dim * dim + dim)
    # Per step: x read, y written; weights and biases read, their gradients written.
    step_bytes = (2 * batch * dim + 2 * weights_and_biases) * e
    # Per step and layer, three batch x dim x dim products (2 flops per multiply-add): forward,
    # weight gradient, input gradient -- except layer 0's input gradient, which is never
    # computed (the input needs none).
    step_flops = 2 * batch * dim * dim * (3 * layers - 1)
    return steps * step_bytes, steps * step_flops


# Input and output tensors of each operation, in the catalogue's layout order, as functions of
# the shape and params: checks that the dump's layout matches the definition.
def tensors(op, shape, params, variant):
    n = elements(shape)
    if op in ("copy", "square", "gelu"):
        return {"in": n}, {"out": n}
    if op == "add":
        return {"a": n, "b": n}, {"out": n}
    if op == "softmax":
        return {"in": n}, {"out": n}
    if op == "reduce":
        rows_variant = variant.startswith("rows")
        return {"in": n}, ({"row_sums": shape[0]} if rows_variant else {"sum": 1})
    if op == "matmul":
        m, nn, k = shape
        return {"a": m * k, "b": k * nn}, {"c": m * nn}
    if op == "mlp":
        b, d, l = shape[0], shape[1], params["layers"]
        return ({"x": b * d, "weights": l * d * d, "biases": l * d},
                {"y": b * d, "grad_weights": l * d * d, "grad_biases": l * d})
    raise ValueError(op)


ORACLES = {
    "copy": (oracle_copy, cost_copy),
    "square": (oracle_square, cost_square),
    "add": (oracle_add, cost_add),
    "gelu": (oracle_gelu, cost_gelu),
    "softmax": (oracle_softmax, cost_softmax),
    "reduce": (oracle_reduce, cost_reduce),
    "matmul": (oracle_matmul, cost_matmul),
    "mlp": (oracle_mlp, cost_mlp),
}


# ---- checks --------------------------------------------------------------------------------------


class Report:
    """Failures with their worst element, and per-operation tallies for the summary."""

    def __init__(self):
        self.failures = []
        self.tally = {}  # op -> [cases, comparisons, worst error / bound, cost checks]

    def count(self, op, comparisons=0, worst=0.0, costs=0, case=False):
        t = self.tally.setdefault(op, [0, 0, 0.0, 0])
        t[0] += case
        t[1] += comparisons
        t[2] = max(t[2], worst)
        t[3] += costs

    def fail(self, what):
        self.failures.append(what)


def compare(report, what, op, got, want):
    """Element-wise |got - want| <= bound; reports the element with the largest error/bound."""
    if got.shape != want.value.shape:
        report.fail(f"{what}: {got.size} elements, expected {want.value.size}")
        return
    err = np.abs(got - want.value)
    bad = ~(err <= want.bound)  # NaN anywhere fails
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(want.bound > 0, err / want.bound, np.where(err == 0, 0.0, np.inf))
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    worst = int(np.argmax(ratio))
    report.count(op, comparisons=1, worst=float(ratio[worst]))
    if bad.any():
        report.fail(f"{what}: {int(bad.sum())} of {got.size} elements out of bounds; worst "
                    f"[{worst}] reference {got[worst]!r} NumPy {want.value[worst]!r} "
                    f"|diff| {err[worst]:.3e} bound {want.bound[worst]:.3e}")


def check_layout(report, what, case, run, inputs):
    want_in, want_out = tensors(case["op"], case["shape"], case["params"], run["variant"])
    got_in = {name: v.size for name, v in inputs.items()}
    if got_in != want_in:
        report.fail(f"{what}: inputs {got_in}, the definition needs {want_in}")
    got_out = [o["name"] for o in run["outputs"]]
    if got_out != list(want_out):
        report.fail(f"{what}: outputs {got_out}, the definition has {list(want_out)}")


def check_inputs(report, what, case, inputs):
    """The dump's inputs are what the oracle assumes: float32 values in [-scale, scale], not
    all zero (a zero tensor would hide a wrong formula)."""
    scale = case["input_scale"]
    for name, v in inputs.items():
        if not np.any(v != 0):
            report.fail(f"{what}: input {name} is all zeros")
        if np.any(np.abs(v) > scale) or np.any(v.astype(np.float32).astype(np.float64) != v):
            report.fail(f"{what}: input {name} is not float32 values within +-{scale}")


def check_costs(report, what, case, run, cost_fn):
    for c in run["costs"]:
        if c["dtype"] not in STORAGE_BYTES:
            report.fail(f"{what}: dtype {c['dtype']} unknown to the oracle")
            continue
        want = cost_fn(case["shape"], case["params"], run["variant"], STORAGE_BYTES[c["dtype"]])
        got = (c["bytes"], c["flops"])
        report.count(case["op"], costs=1)
        if got != want:
            report.fail(f"{what} {c['dtype']}: cost model (bytes, flops) = {got}, derived {want}")


def check_mlp_gradients_by_differences(report, what, case, inputs):
    """The oracle's own backward pass against central differences of its forward pass, so that
    the chain-rule derivation above is not trusted either."""
    batch, dim = case["shape"]
    layers = case["params"]["layers"]
    x = inputs["x"].reshape(batch, dim)
    w = inputs["weights"].reshape(layers, dim, dim).copy()
    b = inputs["biases"].reshape(layers, dim).copy()
    _, gw, gb = mlp_gradients(x, w, b)

    def loss():
        return mlp_forward(x, w, b)[1][-1].mean()

    h = 1e-5  # truncation h^2 f''' / 6 ~ 1e-11, rounding eps |loss| / h ~ 1e-11
    rng = np.random.default_rng(case["seed"])
    for tensor, grad in ((w, gw), (b, gb)):
        flat, gflat = tensor.reshape(-1), grad.reshape(-1)
        for i in rng.choice(flat.size, size=min(6, flat.size), replace=False):
            saved = flat[i]
            flat[i] = saved + h
            up = loss()
            flat[i] = saved - h
            down = loss()
            flat[i] = saved
            fd = (up - down) / (2 * h)
            if not abs(fd - gflat[i]) <= 1e-8 + 1e-6 * abs(fd):
                report.fail(f"{what}: oracle's own gradient [{i}] {gflat[i]!r} disagrees with "
                            f"central differences {fd!r}")


def check_case(report, directory, case):
    op = case["op"]
    oracle, cost_fn = ORACLES[op]
    label = f"{op} {'x'.join(map(str, case['shape']))}"
    if case["params"]:
        label += " " + ",".join(f"{k}={v}" for k, v in sorted(case["params"].items()))
    inputs = {t["name"]: np.fromfile(os.path.join(directory, t["file"]), dtype="<f8")
              for t in case["inputs"]}
    check_inputs(report, label, case, inputs)
    if op == "mlp":
        check_mlp_gradients_by_differences(report, label, case, inputs)
    report.count(op, case=True)
    for run in case["runs"]:
        what = f"{label} {run['variant']}"
        check_layout(report, what, case, run, inputs)
        expected = oracle(case["shape"], case["params"], run["variant"], inputs)
        for out in run["outputs"]:
            if out["name"] not in expected:
                report.fail(f"{what}: output {out['name']} unknown to the oracle")
                continue
            for key in ("file", "element_file"):
                if key in out:
                    got = np.fromfile(os.path.join(directory, out[key]), dtype="<f8")
                    source = "" if key == "file" else " (per-element reference)"
                    compare(report, f"{what} {out['name']}{source}", op, got, expected[out["name"]])
        check_costs(report, what, case, run, cost_fn)


def check_operations_covered(report, manifest):
    """Every catalogue operation has an oracle here and cases in the dump, and vice versa."""
    ops = set(manifest["operations"])
    for op in sorted(ops - set(ORACLES)):
        report.fail(f"operation {op} has no NumPy oracle: add one to {__file__}")
    for op in sorted(set(ORACLES) - ops):
        report.fail(f"the oracle knows {op}, which the catalogue no longer has")
    covered = {c["op"] for c in manifest["cases"]}
    for op in sorted(ops - covered):
        report.fail(f"operation {op} has no case in the dump")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", required=True, help="path of the reference_dump program")
    parser.add_argument("--keep", help="write the dump here and keep it, instead of a temp dir")
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kbench-oracle-") as tmp:
        directory = args.keep or tmp
        dump = subprocess.run([args.dump, directory], check=False)
        if dump.returncode != 0:
            print(f"FAIL {args.dump} exited with status {dump.returncode} (its message is above)")
            return 1
        with open(os.path.join(directory, "manifest.json")) as f:
            manifest = json.load(f)
        report = Report()
        check_operations_covered(report, manifest)
        for case in manifest["cases"]:
            if case["op"] in ORACLES:
                check_case(report, directory, case)
    for op, (cases, comparisons, worst, costs) in report.tally.items():
        print(f"{op:8} {cases:3} cases {comparisons:4} comparisons, worst error {worst:.2e} of "
              f"its bound; {costs:3} cost checks")
    for failure in report.failures:
        print("FAIL", failure)
    print(f"{len(report.failures)} failures in {time.monotonic() - start:.1f} s")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
