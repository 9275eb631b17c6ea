"""Job specs from Python values: "256x256" or (256, 256) shapes, "f32" dtypes, "cold" modes, a
variant or a list of them (several are sampled interleaved, a compare)."""

from .v1 import types_pb2


def shape_of(shape):
    """(256, 256), [256, 256] or "256x256" -> [256, 256]; None or "" -> [] (the default)."""
    if shape is None or shape == "":
        return []
    if isinstance(shape, str):
        try:
            return [int(d) for d in shape.lower().split("x")]
        except ValueError:
            raise ValueError(f"shape: {shape!r} is not like 256x256") from None
    return [int(d) for d in shape]


def enum_value(enum, prefix, word, what):
    """"f32" -> DTYPE_F32; None or "" -> 0 (unspecified: the server's default)."""
    if not word:
        return 0
    if isinstance(word, int):
        return word
    name = prefix + str(word).upper()
    if name not in enum.keys():
        known = [n[len(prefix):].lower() for n in enum.keys() if not n.endswith("UNSPECIFIED")]
        raise ValueError(f"{what}: {word!r} is not one of {', '.join(known)}")
    return enum.Value(name)


def make_spec(kernel, variants=(), *, shape=None, dtype="f32", device="", mode=None,
              params=None, seed=0, priority=0, placements=0, stopping=None, ranked=False,
              sanitize=False, user_kernels=(), kind="benchmark", profile=None):
    """A kbench.v1.JobSpec. `device` "" is the daemon's default, as kbctl's without --device;
    `mode` None is the device's default (cold on CUDA, hot on cpu). `stopping` is a dict of StoppingCriteria fields (max_noise,
    min_samples, min_time_seconds, timeout_seconds); `profile` one of ProfileOptions'
    (iterations, ncu), with kind="profile"."""
    if isinstance(variants, str):
        variants = [variants]
    spec = types_pb2.JobSpec(
        kind=enum_value(types_pb2.JobKind, "JOB_KIND_", kind, "kind"), kernel=kernel,
        variants=list(variants), shape=shape_of(shape),
        dtype=enum_value(types_pb2.DType, "DTYPE_", dtype, "dtype"), device=device,
        priority=priority, mode=enum_value(types_pb2.MeasureMode, "MEASURE_MODE_", mode, "mode"),
        seed=seed, placements=placements, ranked=ranked, sanitize=sanitize)
    spec.params.update(params or {})
    if stopping:
        spec.stopping.CopyFrom(types_pb2.StoppingCriteria(**stopping))
    if profile:
        spec.profile.CopyFrom(types_pb2.ProfileOptions(**profile))
    # As kbctl (client/spec_options.cc): a user kernel is "@user" unless named, and a benchmark
    # lists it among the variants it times; a compile job takes it alone.
    for kernel_code in user_kernels:
        added = spec.user_kernels.add()
        added.CopyFrom(kernel_code)
        added.name = added.name or "@user"
        if spec.kind != types_pb2.JOB_KIND_COMPILE and added.name not in spec.variants:
            spec.variants.append(added.name)
    return spec
