"""Row softmax for kbench's `softmax` operation, written in Triton.

kbench's ABI for softmax (kernels/ops/softmax.cc): input `in`, output `out` (row-major,
contiguous rows x cols), then the dims rows, cols as int64; no params. One program per row;
three passes over the row in BLOCK_SIZE chunks (max, sum of exp, normalise), so any row length
works, accumulating in float32 whatever the storage dtype.
"""

from triton_compat import jit, tl


@jit
def softmax_row_kernel(in_ptr, out_ptr, rows, cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    row_in = in_ptr + row * cols
    row_out = out_ptr + row * cols
    chunk_max = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_in + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        chunk_max = tl.maximum(chunk_max, x)
    row_max = tl.max(chunk_max, axis=0)
    chunk_sum = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_in + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        chunk_sum += tl.exp(x - row_max)
    inv_sum = 1.0 / tl.sum(chunk_sum, axis=0)
    for start in range(0, cols, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_in + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv_sum
        tl.store(row_out + offs, y.to(out_ptr.dtype.element_ty), mask=offs < cols)


# What compile_for_kbench.py and do_bench_peer.py need to know; the names follow kbench's
# Layout for softmax, in its order.
KBENCH = {
    "operation": "softmax",
    "kernel": softmax_row_kernel,
    "inputs": ["in"],
    "outputs": ["out"],
    "dims": ["rows", "cols"],
    "params": [],
    "constexprs": {"BLOCK_SIZE": 1024},
    "num_warps": 4,
    "num_stages": 1,
    # One program per row; Triton's programs are CTAs of num_warps * 32 threads.
    "grid": ["rows", "1", "1"],
}
