"""Triton, or a stand-in that lets these files be imported (and their ABI tested) where Triton
is not installed. Kernels decorated with `jit` here are never run without Triton."""

try:  # Triton 3.x
    import triton
    import triton.language as tl

    jit = triton.jit
    HAVE_TRITON = True
except ImportError:  # the CPU build machine, CI
    triton = None
    HAVE_TRITON = False

    class _Language:
        """Answers any attribute (tl.constexpr, tl.float32, ...) with a placeholder."""

        def __getattr__(self, name):
            return name

    tl = _Language()

    def jit(fn=None, **_options):
        """Keeps the Python function: its signature is what the ABI tests read."""
        if fn is None:
            return lambda f: f
        return fn


def require_triton():
    """Raises a clear error where Triton is needed but missing."""
    if not HAVE_TRITON:
        raise RuntimeError(
            "Triton 3.x is not installed here (pip install triton): compile on the GPU host or "
            "a workstation that has it")
