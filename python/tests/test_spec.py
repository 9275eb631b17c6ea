"""make_spec without a daemon: Python values become the JobSpec kbctl's flags would, and a bad
value is a ValueError naming the argument."""

import unittest

from kbench import make_spec
from kbench.v1 import types_pb2, userkernels_pb2


class MakeSpecTest(unittest.TestCase):
    def test_words_and_shapes_become_the_specs_enums_and_dims(self):
        spec = make_spec("matmul", ["naive", "tiled"], shape="64x32x16", dtype="bf16",
                         device="cuda:0", mode="graph", params={"layers": 2},
                         stopping={"max_noise": 0.01})
        self.assertEqual(list(spec.shape), [64, 32, 16])
        self.assertEqual(spec.dtype, types_pb2.DTYPE_BF16)
        self.assertEqual(spec.mode, types_pb2.MEASURE_MODE_GRAPH)
        self.assertEqual(list(spec.variants), ["naive", "tiled"])
        self.assertEqual(dict(spec.params), {"layers": 2})
        self.assertAlmostEqual(spec.stopping.max_noise, 0.01)
        self.assertEqual(make_spec("softmax", "fused", shape=(8, 8)).shape, [8, 8])

    def test_a_bad_word_names_the_argument_and_the_choices(self):
        with self.assertRaisesRegex(ValueError, r"^dtype: 'f64' is not one of f32, f16"):
            make_spec("softmax", "fused", dtype="f64")
        with self.assertRaisesRegex(ValueError, r"^mode: 'warm'"):
            make_spec("softmax", "fused", mode="warm")
        with self.assertRaisesRegex(ValueError, r"^shape: '64by64'"):
            make_spec("softmax", "fused", shape="64by64")

    def test_a_user_kernel_is_timed_by_its_name_and_compiled_alone(self):
        uk = userkernels_pb2.UserKernel(form=userkernels_pb2.USER_KERNEL_FORM_CUDA)
        bench = make_spec("softmax", "fused", user_kernels=[uk])
        self.assertEqual(list(bench.variants), ["fused", "@user"])
        compile_job = make_spec("softmax", kind="compile", user_kernels=[uk])
        self.assertEqual(list(compile_job.variants), [])
        self.assertEqual(compile_job.user_kernels[0].name, "@user")


if __name__ == "__main__":
    unittest.main()
