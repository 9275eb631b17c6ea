"""kbench.triton: time a @triton.jit kernel on kbenchd from a notebook. bench() compiles the
kernel ahead of time with the project's tool (tools/triton/compile_for_kbench.py, shipped inside
this package as kbench._triton_tool), the operation's ABI read from kbenchd's catalogue instead
of a KBENCH dict, then submits the cubin as `kbctl bench OP --source kernel.json` would.

    import kbench.triton
    job = kbench.triton.bench(softmax_row_kernel, grid="rows", op="softmax",
                              shape="4096x4096", device="cuda:0", BLOCK_SIZE=1024)

Compiling needs Triton 3.x (no GPU); everything else is plain Python.
"""

import importlib.util
import os
import sys
from dataclasses import dataclass, field

from .client import Client
from .spec import make_spec
from .v1 import types_pb2, userkernels_pb2

_KINDS = {userkernels_pb2.AbiArgument.KIND_INPUT: "inputs",
          userkernels_pb2.AbiArgument.KIND_OUTPUT: "outputs",
          userkernels_pb2.AbiArgument.KIND_DIM: "dims",
          userkernels_pb2.AbiArgument.KIND_PARAM: "params"}


def tool_dir():
    """Where compile_for_kbench.py is: $KBENCH_TRITON_TOOL, else the copy installed with this
    package, else the checkout's tools/triton (running from python/ in the repository)."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("KBENCH_TRITON_TOOL", ""), os.path.join(here, "_triton_tool"),
                  os.path.join(here, "..", "..", "tools", "triton")]
    for directory in candidates:
        if directory and os.path.isfile(os.path.join(directory, "compile_for_kbench.py")):
            return os.path.abspath(directory)
    raise RuntimeError("the Triton tool (compile_for_kbench.py) is not installed with kbench; "
                       "set KBENCH_TRITON_TOOL to the repository's tools/triton")


def load_tool():
    """The compile_for_kbench module (imported once, by path: it is not a package)."""
    module = sys.modules.get("compile_for_kbench")
    if module is None:
        path = os.path.join(tool_dir(), "compile_for_kbench.py")
        spec = importlib.util.spec_from_file_location("compile_for_kbench", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["compile_for_kbench"] = module
        spec.loader.exec_module(module)
    return module


def descriptor(kernel, kernel_info, grid, constexprs, num_warps=4, num_stages=1):
    """The tool's KBENCH dict for `kernel`, its ABI taken from the catalogue's KernelInfo."""
    names = {"inputs": [], "outputs": [], "dims": [], "params": []}
    for arg in kernel_info.abi.arguments:
        names[_KINDS[arg.kind]].append(arg.name)
    grid = [grid] if isinstance(grid, (str, int)) else list(grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"grid: {grid!r}: one to three expressions (x, y, z)")
    return dict(names, operation=kernel_info.name, kernel=kernel,
                name=getattr(kernel, "__name__", None) or getattr(kernel, "fn", kernel).__name__,
                constexprs=dict(constexprs), num_warps=num_warps, num_stages=num_stages,
                grid=[str(g) for g in grid] + ["1"] * (3 - len(grid)))


def user_kernel(metadata, cubin, name):
    """The UserKernel kbctl builds from the tool's kernel.json and cubin
    (client/user_kernel_flags.cc ReadTritonMetadata)."""
    abi = metadata["abi"]
    for scratch in abi.get("scratch", []):
        if scratch.get("bytes_per_program", 0) > 0:
            raise ValueError(f"the kernel needs Triton's {scratch['name']} memory, which kbench "
                             "does not allocate")
    scalar_types = {p["type"] for p in abi["params"] if p["role"] in ("dim", "param")}
    uk = userkernels_pb2.UserKernel(
        name=name if name.startswith("@") else "@" + name,
        form=userkernels_pb2.USER_KERNEL_FORM_TRITON, code=cubin, file_name="kernel.json",
        entry=metadata["entry"])
    uk.launch.grid.extend(metadata["launch"]["grid"])
    t = uk.triton
    t.num_warps = metadata["num_warps"]
    t.shared_bytes = metadata["shared_memory_bytes"]
    t.trailing_null_pointers = abi.get("scratch_pointers", 0)
    t.divisible_by_16.extend(abi.get("divisible_by_16", []))
    t.int32_scalars = scalar_types == {"i32"}
    return uk


@dataclass
class CompiledKernel:
    """What compile() produced: the tool's kernel.json document, the cubin and its PTX, and the
    UserKernel a job carries."""
    metadata: dict
    cubin: bytes = field(repr=False)
    ptx: str = field(repr=False)
    user_kernel: object = field(repr=False)

    def write(self, out_dir):
        """Writes kernel.json, the cubin and the PTX (for `kbctl bench --source`)."""
        return load_tool().write_outputs(out_dir, None, self.metadata, self.cubin, self.ptx)


def _arch_of(client, arch, device):
    """Compute capability x 10: as given (90, "90", "sm_90a"), else the device's own."""
    if arch:
        digits = "".join(ch for ch in str(arch) if ch.isdigit())
        return int(digits)
    for d in client.devices():
        if d.kind == types_pb2.DEVICE_KIND_CUDA and device in (d.id, "cuda:any"):
            major, _, minor = d.compute_capability.partition(".")
            return int(major) * 10 + int(minor or 0)
    raise ValueError(f"device: {device!r} is no CUDA device of this kbenchd; pass arch=")


def compile(kernel, grid, *, op, client=None, dtype="f32", arch=None, device="cuda:any",
            num_warps=4, num_stages=1, divisible_by_16=(), scalars=None, name=None,
            **constexprs):
    """Compiles `kernel` for op's ABI with the project's tool. `scalars` "i32" types dims and
    params as Triton's JIT types small ints (kbench then refuses values beyond int32)."""
    client = client or Client()
    tool = load_tool()
    info = next((k for k in client.kernels() if k.name == op), None)
    if info is None:
        raise ValueError(f"op: {op!r} is not in kbenchd's catalogue")
    desc = descriptor(kernel, info, grid, constexprs, num_warps, num_stages)
    desc = dict(desc, divisible_by_16=list(divisible_by_16), scalar_type=scalars or "i64")
    tool.check_abi(desc, dtype)
    target = {"backend": "cuda", "arch": _arch_of(client, arch, device), "warp_size": 32}
    compiled, version = tool.compile_with_triton(desc, dtype, target)
    facts = tool.compiled_facts(compiled)
    metadata = tool.build_metadata(desc, dtype, target, facts, f"{desc['name']}.cubin", version)
    return CompiledKernel(metadata, facts["cubin"], facts["ptx"],
                          user_kernel(metadata, facts["cubin"], name or desc["name"]))


def bench(kernel, grid, *, op, shape=None, variants=(), device="cuda:any", dtype="f32",
          client=None, wait=True, progress=False, arch=None, num_warps=4, num_stages=1,
          divisible_by_16=(), scalars=None, name=None, spec=None, **constexprs):
    """Compiles `kernel` (constexprs as keyword arguments) and times it on kbenchd beside the
    catalogue `variants` named; returns the Job (its result once done, unless wait=False).
    `spec` holds further make_spec fields (mode, stopping, placements, ...)."""
    client = client or Client()
    built = compile(kernel, grid, op=op, client=client, dtype=dtype, arch=arch, device=device,
                    num_warps=num_warps, num_stages=num_stages,
                    divisible_by_16=divisible_by_16, scalars=scalars, name=name, **constexprs)
    job_spec = make_spec(op, variants, shape=shape, dtype=dtype, device=device,
                         user_kernels=[built.user_kernel], **(spec or {}))
    job = client.submit(job_spec)
    return client.wait(job.id, progress=progress) if wait else job
