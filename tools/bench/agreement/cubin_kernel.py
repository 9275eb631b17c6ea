"""A cubin's kernel launched from Python through the CUDA driver API (ctypes, no extra
package), on PyTorch's current stream and context: how the agreement panel's peers time the very
kernel kbench times (issue 29, item 4), rather than an implementation of their own.
"""
import ctypes


class CudaError(RuntimeError):
    pass


def _driver():
    cuda = ctypes.CDLL("libcuda.so.1")
    vp, u = ctypes.c_void_p, ctypes.c_uint
    cuda.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
    cuda.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
    cuda.cuLaunchKernel.argtypes = [vp, u, u, u, u, u, u, u, vp, ctypes.POINTER(vp), vp]
    cuda.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    return cuda


class CubinKernel:
    """One entry of a cubin, loaded into the current context (PyTorch's primary context: make a
    CUDA tensor first)."""

    def __init__(self, path, entry):
        self._cuda = _driver()
        with open(path, "rb") as f:
            self._image = f.read()  # the driver reads it during the load only, but keep it
        self._module = ctypes.c_void_p()
        self._check(self._cuda.cuModuleLoadData(ctypes.byref(self._module), self._image),
                    "cuModuleLoadData(%s)" % path)
        self._function = ctypes.c_void_p()
        self._check(self._cuda.cuModuleGetFunction(ctypes.byref(self._function), self._module,
                                                   entry.encode()),
                    "cuModuleGetFunction(%s)" % entry)

    def _check(self, result, what):
        if result != 0:
            text = ctypes.c_char_p()
            self._cuda.cuGetErrorString(result, ctypes.byref(text))
            raise CudaError("%s: CUDA error %d (%s)" % (what, result,
                                                       (text.value or b"?").decode()))

    def launcher(self, grid, block, args, stream_of):
        """A function launching the kernel with `args` (ctypes values, kept alive here) on
        stream_of() at each call (PyTorch's current stream: do_bench_cudagraph captures on a
        side stream)."""
        values = list(args)
        pointers = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])

        def launch():
            self._check(self._cuda.cuLaunchKernel(
                self._function, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0,
                ctypes.c_void_p(stream_of()), pointers, None), "cuLaunchKernel")
        launch._keep = (values, pointers)
        return launch
