"""Vector add for kbench's `add` operation, written in Triton.

kbench's ABI for add (kernels/ops/add.cc): inputs `a`, `b`, output `out` (contiguous), then one
int64 per shape dim, no params. This kernel takes a 1-D shape (`--shape N`), so one dim: n.
"""

from triton_compat import jit, tl


@jit
def vector_add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    block = tl.program_id(0).to(tl.int64)
    offs = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


KBENCH = {
    "operation": "add",
    "kernel": vector_add_kernel,
    "inputs": ["a", "b"],
    "outputs": ["out"],
    "dims": ["n"],
    "params": [],
    "constexprs": {"BLOCK_SIZE": 1024},
    "num_warps": 4,
    "num_stages": 1,
    # One program per BLOCK_SIZE elements (integer division rounds down, hence the + 1023).
    "grid": ["(n + 1023) / 1024", "1", "1"],
}
