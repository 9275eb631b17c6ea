"""kbench.triton without Triton: the catalogue's ABI becomes the tool's descriptor, the tool's
checks run, and the job carries the same UserKernel that `kbctl compile --source kernel.json`
builds from the tool's output (Triton's compile itself replaced by a fake compiled kernel)."""

import importlib.util
import json
import os
import struct
import subprocess
import tempfile
import unittest
from unittest import mock

from google.protobuf import json_format

import kbench
import kbench.triton as kt
from kbench.v1 import types_pb2
from daemon import Daemon, bin_dir

HAVE_TRITON = importlib.util.find_spec("triton") is not None
daemon = None


def setUpModule():
    global daemon
    daemon = Daemon()


def tearDownModule():
    if daemon is not None:
        daemon.stop()


def softmax_row_kernel(in_ptr, out_ptr, rows, cols, BLOCK_SIZE):
    """The signature of tools/triton/examples/softmax_row.py's kernel; never run here."""


def swapped_kernel(out_ptr, in_ptr, rows, cols, BLOCK_SIZE):
    """Its output pointer where the ABI passes the input."""


def fake_cubin(sm=90):
    """The 64-byte header kbenchd checks of a cubin: ELF64, CUDA's OS ABI, EM_CUDA, the SM."""
    header = bytearray(64)
    header[0:9] = b"\x7fELF\x02\x01\x01\x33\x07"
    struct.pack_into("<HH", header, 16, 2, 190)
    struct.pack_into("<I", header, 48, sm)
    return bytes(header) + b"kernel code"


class FakeCompiled:
    """Shaped as triton's CompiledKernel, as far as the tool reads it."""
    metadata = {"name": "softmax_row_kernel", "num_warps": 4, "shared": 0, "num_stages": 1}
    asm = {"ptx": ".visible .entry softmax_row_kernel(.param .u64 a, .param .u64 b, "
                  ".param .u64 c, .param .u64 d, .param .u64 .ptr .global scratch)",
           "cubin": fake_cubin()}


def fake_compile(desc, dtype, target):
    return FakeCompiled(), "3.3.0"


class TritonBenchTest(unittest.TestCase):
    def setUp(self):
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ["KBENCH_CONFIG"] = os.path.join(tempfile.gettempdir(), "kbench-py-none.yaml")
        self.kb = kbench.Client(server=daemon.address, timeout=20)
        self.addCleanup(self.kb.close)
        patcher = mock.patch.object(kt.load_tool(), "compile_with_triton", fake_compile)
        patcher.start()
        self.addCleanup(patcher.stop)

    def compile(self, kernel=softmax_row_kernel, **kwargs):
        return kt.compile(kernel, "rows", op="softmax", client=self.kb, arch="sm_90",
                          BLOCK_SIZE=1024, **kwargs)

    def test_the_descriptor_follows_the_catalogue_abi(self):
        info = next(k for k in self.kb.kernels() if k.name == "softmax")
        desc = kt.descriptor(softmax_row_kernel, info, "rows", {"BLOCK_SIZE": 1024})
        self.assertEqual((desc["inputs"], desc["outputs"], desc["dims"], desc["params"]),
                         (["in"], ["out"], ["rows", "cols"], []))
        self.assertEqual(desc["grid"], ["rows", "1", "1"])

    def test_a_kernel_breaking_the_abi_is_refused_before_compiling(self):
        with self.assertRaisesRegex(ValueError, "stands where the ABI passes input 'in'"):
            self.compile(swapped_kernel)

    def test_the_job_carries_what_kbctl_builds_from_the_tools_output(self):
        built = self.compile(name="@softmax_row_kernel")
        self.assertEqual(built.metadata["abi"]["scratch_pointers"], 1)
        with tempfile.TemporaryDirectory() as out:
            path = built.write(out)
            kbctl = subprocess.run(
                [os.path.join(bin_dir(), "kbctl"), "--server", daemon.address, "compile",
                 "softmax", "--source", path, "--arch", "sm_90", "--name", "@softmax_row_kernel",
                 "--no-wait", "-o", "json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(kbctl.returncode, 0, kbctl.stderr)
        theirs = json.loads(kbctl.stdout)["spec"]["user_kernels"][0]
        ours_uk = types_pb2.JobSpec().user_kernels.add()
        ours_uk.CopyFrom(built.user_kernel)
        ours_uk.arch = "sm_90"
        job = self.kb.submit(kbench.make_spec("softmax", kind="compile", device="",
                                              user_kernels=[ours_uk]))
        ours = json_format.MessageToDict(self.kb.get(job.id).proto.spec.user_kernels[0],
                                         preserving_proto_field_name=True,
                                         including_default_value_fields=True)
        self.assertEqual(json.loads(json.dumps(ours)), theirs)
        for job_id in (job.id, json.loads(kbctl.stdout)["id"]):
            self.kb.cancel(job_id)

    def test_bench_submits_the_kernel_beside_the_catalogue_variants(self):
        # kbenchd refuses user kernels on the cpu device, naming the field: the submit got there.
        with self.assertRaises(kbench.FailedPreconditionError) as caught:
            kt.bench(softmax_row_kernel, "rows", op="softmax", shape="64x64", device="cpu",
                     variants=["host_rowwise"], client=self.kb, arch=90, BLOCK_SIZE=1024)
        self.assertEqual(caught.exception.field, "user_kernels")

    def test_scratch_memory_that_kbench_does_not_allocate_is_refused(self):
        built = self.compile()
        built.metadata["abi"]["scratch"][0]["bytes_per_program"] = 64
        with self.assertRaisesRegex(ValueError, "global_scratch"):
            kt.user_kernel(built.metadata, built.cubin, "@k")


@unittest.skipIf(HAVE_TRITON, "Triton is installed here")
class WithoutTritonTest(unittest.TestCase):
    def test_compiling_says_triton_is_missing(self):
        with kbench.Client(server=daemon.address, timeout=20) as kb:
            with self.assertRaisesRegex(RuntimeError, "Triton 3.x is not installed"):
                kt.compile(softmax_row_kernel, "rows", op="softmax", client=kb, arch=90,
                           BLOCK_SIZE=1024)

if __name__ == "__main__":
    unittest.main()
