#!/usr/bin/env python3
"""Compiles a @triton.jit kernel into a cubin plus the metadata JSON that kbench takes as a
user variant (`kbctl bench OP --source kernel.json ...`).

The kernel follows the kbench ABI of its operation: input pointers, then output pointers, in the
operation's Layout order, then one int64 per shape dim, then the operation's params as int64
(row-major, contiguous tensors); tl.constexpr arguments come last and are fixed at compile time.
A kernel module describes itself in a dict named KBENCH (see examples/).

    python3 tools/triton/compile_for_kbench.py tools/triton/examples/softmax_row.py \\
        --dtype f32 --arch 90 --out-dir /tmp/softmax_row

writes /tmp/softmax_row/softmax_row.cubin and /tmp/softmax_row/kernel.json.

Runs where Triton 3.x is installed (the GPU host, a workstation; no GPU is needed to compile).
Everything but the compile itself is plain Python, importable and tested without Triton.
"""

import argparse
import hashlib
import importlib.util
import inspect
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launch_grid  # noqa: E402
import triton_compat  # noqa: E402

FORMAT = "kbench-triton-cubin/1"
# kbench dtype name -> Triton pointer element type.
POINTER_TYPES = {"f32": "*fp32", "f16": "*fp16", "bf16": "*bf16"}
DESCRIPTOR_KEYS = ("operation", "kernel", "inputs", "outputs", "dims", "params", "constexprs",
                   "num_warps", "num_stages", "grid")


class AbiError(ValueError):
    """The kernel's signature or descriptor does not follow the kbench ABI."""


def load_descriptor(path):
    """Imports the kernel module at `path` and returns its KBENCH dict."""
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AbiError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    desc = getattr(module, "KBENCH", None)
    if not isinstance(desc, dict):
        raise AbiError(f"{path}: defines no KBENCH dict describing its kernel")
    missing = [k for k in DESCRIPTOR_KEYS if k not in desc]
    if missing:
        raise AbiError(f"{path}: KBENCH lacks {', '.join(missing)}")
    return dict(desc, name=name)


def kernel_arg_names(kernel):
    """The kernel's parameter names, in order (a JITFunction knows them; a plain function too)."""
    names = getattr(kernel, "arg_names", None)
    if names is not None:
        return list(names)
    return list(inspect.signature(kernel).parameters)


def abi_params(desc, dtype):
    """The runtime parameters kbench passes, in order: [{"name", "role", "type"}]."""
    if dtype not in POINTER_TYPES:
        raise AbiError(f"dtype {dtype!r}: expected one of {', '.join(POINTER_TYPES)}")
    params = [{"name": t, "role": "input", "type": POINTER_TYPES[dtype]} for t in desc["inputs"]]
    params += [{"name": t, "role": "output", "type": POINTER_TYPES[dtype]}
               for t in desc["outputs"]]
    scalar = desc.get("scalar_type", "i64")
    params += [{"name": d, "role": "dim", "type": scalar} for d in desc["dims"]]
    params += [{"name": p, "role": "param", "type": scalar} for p in desc["params"]]
    return params


def check_abi(desc, dtype):
    """Raises AbiError unless the kernel's arguments are the ABI's, in its order, then the
    constexprs. A pointer argument may carry a `_ptr` suffix (`in_ptr` for tensor `in`)."""
    args = kernel_arg_names(desc["kernel"])
    params = abi_params(desc, dtype)
    constexprs = list(desc["constexprs"])
    if len(args) != len(params) + len(constexprs):
        raise AbiError(f"{desc['operation']}: the kernel takes {len(args)} arguments {args}; the "
                       f"ABI passes {len(params)} ({[p['name'] for p in params]}) then the "
                       f"constexprs {constexprs}")
    for arg, param in zip(args, params):
        allowed = {param["name"]}
        if param["type"].startswith("*"):
            allowed.add(param["name"] + "_ptr")
        if arg not in allowed:
            raise AbiError(f"{desc['operation']}: argument {arg!r} stands where the ABI passes "
                           f"{param['role']} {param['name']!r}")
    if args[len(params):] != constexprs:
        raise AbiError(f"{desc['operation']}: the kernel's last arguments {args[len(params):]} "
                       f"are not the constexprs {constexprs}")
    if len(desc["grid"]) != 3:
        raise AbiError(f"grid {desc['grid']}: expected three expressions (x, y, z)")
    try:  # every expression must evaluate over the dims
        launch_grid.grid(desc["grid"], {d: 1024 for d in desc["dims"]})
    except (ValueError, SyntaxError) as e:
        raise AbiError(str(e)) from e


def triton_signature(desc, dtype):
    """The signature for triton.compiler.ASTSource: argument name -> Triton type."""
    args = kernel_arg_names(desc["kernel"])
    types = [p["type"] for p in abi_params(desc, dtype)] + ["constexpr"] * len(desc["constexprs"])
    return dict(zip(args, types))


_PTX_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", re.S)


def ptx_entry_params(ptx):
    """(entry name, [parameter names]) of the PTX's one kernel entry."""
    match = _PTX_ENTRY.search(ptx)
    if match is None:
        raise AbiError("the PTX has no .entry")
    # ".param .u64 .ptr .global .align 1 name": the name comes last, whatever the qualifiers.
    names = [p.split()[-1] for p in match.group(2).split(",") if p.strip()]
    return match.group(1), names


def scratch_pointer_count(ptx, runtime_params):
    """Pointers Triton appended after the kernel's own runtime parameters: 3.3+ adds
    global_scratch, later versions profile_scratch too. The launcher passes them (null when
    their size is 0)."""
    _, names = ptx_entry_params(ptx)
    extra = len(names) - runtime_params
    if extra < 0:
        raise AbiError(f"the PTX entry takes {len(names)} parameters, fewer than the ABI's "
                       f"{runtime_params}: a runtime argument was specialised away (equal to 1?)")
    return extra


def compiled_facts(compiled):
    """What kbench needs from a triton CompiledKernel (or anything shaped like one)."""
    md = compiled.metadata
    get = (lambda k, d=None: md.get(k, d)) if isinstance(md, dict) else \
        (lambda k, d=None: getattr(md, k, d))
    ptx = compiled.asm["ptx"]
    entry, _ = ptx_entry_params(ptx)
    cluster = get("cluster_dims", (1, 1, 1))
    return {
        "entry": get("name", entry),
        "num_warps": int(get("num_warps")),
        "num_ctas": int(get("num_ctas", 1)),
        "num_stages": int(get("num_stages", 0)),
        "shared_memory_bytes": int(get("shared", 0)),
        "cluster_dims": [int(c) for c in cluster],
        "global_scratch_bytes": int(get("global_scratch_size", 0) or 0),
        "global_scratch_align": int(get("global_scratch_align", 1) or 1),
        "profile_scratch_bytes": int(get("profile_scratch_size", 0) or 0),
        "profile_scratch_align": int(get("profile_scratch_align", 1) or 1),
        "ptx": ptx,
        "cubin": compiled.asm["cubin"],
    }


def build_metadata(desc, dtype, target, facts, cubin_file, compiler_version):
    """The kernel.json document kbctl submits with --source."""
    params = abi_params(desc, dtype)
    cubin = facts["cubin"]
    return {
        "format": FORMAT,
        "operation": desc["operation"],
        "dtype": dtype,
        "binary": {"kind": "cubin", "path": cubin_file,
                   "sha256": hashlib.sha256(cubin).hexdigest(), "bytes": len(cubin)},
        "entry": facts["entry"],
        "num_warps": facts["num_warps"],
        "num_ctas": facts["num_ctas"],
        "num_stages": facts["num_stages"],
        "shared_memory_bytes": facts["shared_memory_bytes"],
        "launch": {
            "grid": list(desc["grid"]),
            "block": [facts["num_warps"] * target["warp_size"], 1, 1],
            "cluster": facts["cluster_dims"],
            "dynamic_shared_memory_bytes": facts["shared_memory_bytes"],
        },
        "abi": {
            "params": params,
            # Declared to Triton (divisibility_attrs): every pointer 16-byte aligned.
            "pointer_alignment": 16,
            # Dims and params compiled as divisible by 16; kbench refuses shapes that are not.
            "divisible_by_16": list(desc.get("divisible_by_16", [])),
            # Triton 3.x's trailing pointers after the ABI's parameters, in order; each needs
            # bytes_per_program x (programs in the grid) of device memory (null when 0).
            "scratch_pointers": scratch_pointer_count(facts["ptx"], len(params)),
            "scratch": [
                {"name": "global_scratch", "bytes_per_program": facts["global_scratch_bytes"],
                 "align": facts["global_scratch_align"]},
                {"name": "profile_scratch", "bytes_per_program": facts["profile_scratch_bytes"],
                 "align": facts["profile_scratch_align"]},
            ],
        },
        "constexprs": dict(desc["constexprs"]),
        "target": dict(target),
        "compiler": {"name": "triton", "version": compiler_version},
    }


def divisibility_attrs(desc, dtype):
    """kbench aligns every buffer to 256 bytes, so the pointers may be declared 16-divisible as
    Triton's JIT does for aligned tensors (vectorised loads); the launcher must keep that. The
    dims and params in desc["divisible_by_16"] are declared so too, as the JIT does for an
    integer argument whose value is: kbench then refuses shapes that break it."""
    divisible = set(desc.get("divisible_by_16", ()))
    return {(i, ): [["tt.divisibility", 16]]
            for i, p in enumerate(abi_params(desc, dtype))
            if p["role"] in ("input", "output") or p["name"] in divisible}


def divisible_names(desc, shape, names):
    """The dims and params to declare divisible by 16: those named, and with a shape (the one
    the kernel will be timed at, like Triton's JIT sees it) every dim whose extent is."""
    known = list(desc["dims"]) + list(desc["params"])
    chosen = []
    for name in names:
        if name not in known:
            raise AbiError(f"--divisible {name!r}: not one of the dims and params {known}")
        chosen.append(name)
    if shape:
        extents = [int(x) for x in shape.lower().split("x")]
        if len(extents) != len(desc["dims"]):
            raise AbiError(f"--specialize-for {shape!r}: {desc['operation']} has dims "
                           f"{desc['dims']}")
        chosen += [d for d, n in zip(desc["dims"], extents) if n % 16 == 0]
    return sorted(set(chosen), key=known.index)


def scalar_type(chosen, specialize_for):
    """The dims' and params' Triton type: as chosen, else i32 when compiling for a shape (the
    JIT's type for every int below 2^31, and a shape's dims are), else kbench's i64."""
    if chosen:
        return chosen
    if not specialize_for:
        return "i64"
    fits = all(int(x) < 2**31 for x in specialize_for.lower().split("x"))
    return "i32" if fits else "i64"


def triton_version_tuple(version):
    """(major, minor) of a version string such as "3.2.0" or "3.4.0+git1234"."""
    match = re.match(r"(\d+)\.(\d+)", version)
    if match is None:
        raise RuntimeError(f"cannot read Triton's version {version!r}")
    return int(match.group(1)), int(match.group(2))


def make_source(ast_source, desc, dtype, version):
    """triton.compiler.ASTSource, whose arguments changed within Triton 3.x."""
    kernel = desc["kernel"]
    signature = triton_signature(desc, dtype)
    constexprs = dict(desc["constexprs"])
    if version >= (3, 3):  # names, constexprs in the signature, attrs by argument path
        return ast_source(fn=kernel, signature=signature, constexprs=constexprs,
                          attrs=divisibility_attrs(desc, dtype))
    if desc.get("divisible_by_16"):
        raise AbiError("--divisible/--specialize-for need Triton 3.3 or later")
    if version >= (3, 2):  # names, `constants`
        return ast_source(fn=kernel, signature=signature, constants=constexprs)
    # 3.0 and 3.1: positions, the constants apart from the signature
    args = kernel_arg_names(kernel)
    return ast_source(fn=kernel,
                      signature={i: t for i, t in enumerate(signature.values())
                                 if t != "constexpr"},
                      constants={args.index(k): v for k, v in constexprs.items()})


def compile_with_triton(desc, dtype, target):
    """triton.compile for `target` ({"backend", "arch", "warp_size"}); returns the kernel."""
    triton_compat.require_triton()
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    version = triton.__version__
    src = make_source(ASTSource, desc, dtype, triton_version_tuple(version))
    options = {"num_warps": desc["num_warps"], "num_stages": desc["num_stages"]}
    gpu = GPUTarget(target["backend"], target["arch"], target["warp_size"])
    return triton.compile(src, target=gpu, options=options), version


def write_outputs(out_dir, desc, metadata, cubin, ptx=None):
    """The cubin, kernel.json and, when given, the PTX beside the cubin (to read what Triton
    generated; kbench runs the cubin)."""
    os.makedirs(out_dir, exist_ok=True)
    binary = os.path.join(out_dir, metadata["binary"]["path"])
    with open(binary, "wb") as f:
        f.write(cubin)
    if ptx is not None:
        with open(os.path.splitext(binary)[0] + ".ptx", "w") as f:
            f.write(ptx)
    path = os.path.join(out_dir, "kernel.json")
    with open(path, "w") as f:
        json.dump(metadata, f, indent=2)
        f.write("\n")
    return path


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("module", help="a Python file with a @triton.jit kernel and its KBENCH dict")
    p.add_argument("--dtype", default="f32", choices=sorted(POINTER_TYPES))
    p.add_argument("--arch", type=int, default=90, help="compute capability x 10 (H100: 90)")
    p.add_argument("--warp-size", type=int, default=32)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--constexpr", action="append", default=[], metavar="NAME=VALUE",
                   help="override a constexpr of KBENCH (repeatable)")
    p.add_argument("--specialize-for", metavar="SHAPE",
                   help="declare each dim of SHAPE (e.g. 4096x4096) that is divisible by 16 so, "
                        "as Triton's JIT would for that shape (vectorised loads); kbench then "
                        "refuses shapes where such a dim is not")
    p.add_argument("--divisible", action="append", default=[], metavar="NAME",
                   help="declare a dim or param divisible by 16 (repeatable)")
    p.add_argument("--scalars", choices=("i64", "i32"),
                   help="the dims' and params' type: i64 (kbench's ABI; the default) or i32, as "
                        "Triton's JIT types a Python int below 2^31 (the default with "
                        "--specialize-for); kbench refuses values that do not fit")
    p.add_argument("--num-warps", type=int)
    p.add_argument("--num-stages", type=int)
    return p.parse_args(argv)


def apply_overrides(desc, args):
    constexprs = dict(desc["constexprs"])
    for item in args.constexpr:
        name, sep, value = item.partition("=")
        if not sep or name not in constexprs:
            raise AbiError(f"--constexpr {item!r}: expected NAME=VALUE with NAME one of "
                           f"{list(constexprs)}")
        constexprs[name] = int(value)
    desc = dict(desc, constexprs=constexprs,
                divisible_by_16=divisible_names(desc, args.specialize_for, args.divisible),
                scalar_type=scalar_type(args.scalars, args.specialize_for))
    if args.num_warps:
        desc["num_warps"] = args.num_warps
    if args.num_stages is not None:
        desc["num_stages"] = args.num_stages
    return desc


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        desc = apply_overrides(load_descriptor(args.module), args)
        check_abi(desc, args.dtype)
        target = {"backend": "cuda", "arch": args.arch, "warp_size": args.warp_size}
        compiled, version = compile_with_triton(desc, args.dtype, target)
        facts = compiled_facts(compiled)
        metadata = build_metadata(desc, args.dtype, target, facts, f"{desc['name']}.cubin",
                                  version)
        path = write_outputs(args.out_dir, desc, metadata, facts["cubin"], facts["ptx"])
    except (AbiError, RuntimeError) as e:
        print(f"compile_for_kbench: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}: {metadata['entry']}, {metadata['num_warps']} warps, "
          f"{metadata['shared_memory_bytes']} B shared, "
          f"{metadata['abi']['scratch_pointers']} scratch pointers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
