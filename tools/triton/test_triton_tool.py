"""Tests of tools/triton that need no Triton and no GPU: the examples follow kbench's ABI, the
Triton signature and metadata are built right from a stand-in compiled kernel, the scratch
pointers are counted from the PTX, grids evaluate, and the tools fail clearly without Triton.
Run: /usr/bin/python3 -m unittest discover -s tools/triton -p 'test_*.py'"""

import hashlib
import json
import contextlib
import io
import os
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compile_for_kbench as ck  # noqa: E402
import launch_grid  # noqa: E402
import triton_compat  # noqa: E402

SOFTMAX = os.path.join(HERE, "examples", "softmax_row.py")
ADD = os.path.join(HERE, "examples", "vector_add.py")

# A Triton 3.3-style PTX entry: the ABI's parameters, then global and profile scratch.
PTX = """
.version 8.4
.target sm_90a
.address_size 64
.visible .entry softmax_row_kernel(
	.param .u64 .ptr .global .align 1 softmax_row_kernel_param_0,
	.param .u64 .ptr .global .align 1 softmax_row_kernel_param_1,
	.param .u64 softmax_row_kernel_param_2,
	.param .u64 softmax_row_kernel_param_3,
	.param .u64 .ptr .global .align 1 softmax_row_kernel_param_4,
	.param .u64 .ptr .global .align 1 softmax_row_kernel_param_5
)
.reqntid 128, 1, 1
{
	ret;
}
"""


def fake_compiled(ptx=PTX, **metadata):
    md = {"name": "softmax_row_kernel", "num_warps": 4, "num_ctas": 1, "num_stages": 1,
          "shared": 64, "cluster_dims": (1, 1, 1), "global_scratch_size": 0,
          "global_scratch_align": 1}
    md.update(metadata)
    return types.SimpleNamespace(metadata=types.SimpleNamespace(**md),
                                 asm={"ptx": ptx, "cubin": b"\x7fELF fake cubin"})


class ExamplesFollowTheAbi(unittest.TestCase):
    def test_softmax_takes_in_out_rows_cols_then_block_size(self):
        desc = ck.load_descriptor(SOFTMAX)
        ck.check_abi(desc, "f32")  # raises on a mismatch
        self.assertEqual(desc["operation"], "softmax")
        # kernels/ops/softmax.cc: inputs {"in"}, outputs {"out"}, dims {"rows", "cols"}.
        self.assertEqual([p["name"] for p in ck.abi_params(desc, "f32")],
                         ["in", "out", "rows", "cols"])

    def test_add_takes_a_b_out_n_then_block_size(self):
        desc = ck.load_descriptor(ADD)
        ck.check_abi(desc, "f16")
        # kernels/ops/add.cc: inputs {"a", "b"}, output {"out"}, one dim per shape dim.
        self.assertEqual([p["name"] for p in ck.abi_params(desc, "f16")], ["a", "b", "out", "n"])

    def test_a_kernel_with_swapped_arguments_is_refused(self):
        desc = ck.load_descriptor(ADD)

        def swapped(out_ptr, a_ptr, b_ptr, n, BLOCK_SIZE):
            pass

        with self.assertRaisesRegex(ck.AbiError, "argument 'out_ptr' stands where the ABI "
                                                 "passes input 'a'"):
            ck.check_abi(dict(desc, kernel=swapped), "f32")

    def test_a_kernel_missing_a_dim_is_refused(self):
        desc = ck.load_descriptor(SOFTMAX)

        def short(in_ptr, out_ptr, rows, BLOCK_SIZE):
            pass

        with self.assertRaisesRegex(ck.AbiError, "takes 4 arguments"):
            ck.check_abi(dict(desc, kernel=short), "f32")

    def test_an_unknown_name_in_the_grid_is_refused(self):
        desc = ck.load_descriptor(ADD)
        with self.assertRaisesRegex(ck.AbiError, "unknown name 'm'"):
            ck.check_abi(dict(desc, grid=["m / 1024", "1", "1"]), "f32")


class TritonSignature(unittest.TestCase):
    def test_pointers_of_the_dtype_int64_dims_and_constexprs(self):
        desc = ck.load_descriptor(SOFTMAX)
        self.assertEqual(ck.triton_signature(desc, "bf16"),
                         {"in_ptr": "*bf16", "out_ptr": "*bf16", "rows": "i64", "cols": "i64",
                          "BLOCK_SIZE": "constexpr"})

    def test_pointers_are_declared_16_byte_divisible(self):
        desc = ck.load_descriptor(ADD)
        self.assertEqual(sorted(ck.divisibility_attrs(desc, "f32")), [(0, ), (1, ), (2, )])

    def test_specialising_for_a_shape_declares_its_dims_divisible_by_16(self):
        desc = ck.load_descriptor(SOFTMAX)  # in, out, rows, cols
        self.assertEqual(ck.divisible_names(desc, "4096x4096", []), ["rows", "cols"])
        self.assertEqual(ck.divisible_names(desc, "4095x4096", []), ["cols"])
        self.assertEqual(ck.divisible_names(desc, "4095x1000", []), [])
        self.assertEqual(ck.divisible_names(desc, None, ["cols"]), ["cols"])
        desc = dict(desc, divisible_by_16=["cols"])
        self.assertEqual(sorted(ck.divisibility_attrs(desc, "f32")), [(0, ), (1, ), (3, )])

    def test_specialising_for_a_shape_types_dims_as_the_jit_does(self):
        # Triton's JIT types a Python int below 2^31 as i32; kbench's ABI default is i64.
        self.assertEqual(ck.scalar_type(None, None), "i64")
        self.assertEqual(ck.scalar_type(None, "4096x4096"), "i32")
        self.assertEqual(ck.scalar_type(None, "4096x2147483648"), "i64")
        self.assertEqual(ck.scalar_type("i64", "4096x4096"), "i64")
        desc = dict(ck.load_descriptor(SOFTMAX), scalar_type="i32")
        self.assertEqual(ck.triton_signature(desc, "f32"),
                         {"in_ptr": "*fp32", "out_ptr": "*fp32", "rows": "i32", "cols": "i32",
                          "BLOCK_SIZE": "constexpr"})
        facts = ck.compiled_facts(fake_compiled())
        md = ck.build_metadata(desc, "f32", {"backend": "cuda", "arch": 90, "warp_size": 32},
                               facts, "softmax_row.cubin", "3.6.0")
        self.assertEqual([p["type"] for p in md["abi"]["params"] if p["role"] == "dim"],
                         ["i32", "i32"])

    def test_specialising_refuses_unknown_names_and_wrong_ranks(self):
        desc = ck.load_descriptor(SOFTMAX)
        with self.assertRaisesRegex(ck.AbiError, "dims and params"):
            ck.divisible_names(desc, None, ["n"])
        with self.assertRaisesRegex(ck.AbiError, r"has dims \['rows', 'cols'\]"):
            ck.divisible_names(desc, "4096", [])

    def test_the_metadata_lists_what_was_declared_divisible(self):
        desc = dict(ck.load_descriptor(SOFTMAX), divisible_by_16=["cols"])
        facts = ck.compiled_facts(fake_compiled())
        md = ck.build_metadata(desc, "f32", {"backend": "cuda", "arch": 90, "warp_size": 32},
                               facts, "softmax_row.cubin", "3.6.0")
        self.assertEqual(md["abi"]["divisible_by_16"], ["cols"])

    def test_source_arguments_follow_the_triton_version(self):
        desc = ck.load_descriptor(SOFTMAX)
        seen = []

        def ast_source(**kwargs):
            seen.append(kwargs)
            return kwargs

        ck.make_source(ast_source, desc, "f32", (3, 4))
        ck.make_source(ast_source, desc, "f32", (3, 2))
        ck.make_source(ast_source, desc, "f32", (3, 1))
        self.assertEqual(seen[0]["constexprs"], {"BLOCK_SIZE": 1024})
        self.assertIn("attrs", seen[0])
        self.assertEqual(seen[1]["constants"], {"BLOCK_SIZE": 1024})
        self.assertEqual(seen[2]["signature"], {0: "*fp32", 1: "*fp32", 2: "i64", 3: "i64"})
        self.assertEqual(seen[2]["constants"], {4: 1024})

    def test_versions_are_read_with_their_suffixes(self):
        self.assertEqual(ck.triton_version_tuple("3.4.0+git5389ed79"), (3, 4))
        self.assertEqual(ck.triton_version_tuple("3.10.1"), (3, 10))


class ScratchPointers(unittest.TestCase):
    def test_counts_the_parameters_triton_appended(self):
        self.assertEqual(ck.ptx_entry_params(PTX)[0], "softmax_row_kernel")
        self.assertEqual(ck.scratch_pointer_count(PTX, 4), 2)

    def test_none_for_an_older_triton(self):
        old = PTX.replace(",\n\t.param .u64 .ptr .global .align 1 softmax_row_kernel_param_4,\n"
                          "\t.param .u64 .ptr .global .align 1 softmax_row_kernel_param_5", "")
        self.assertEqual(ck.scratch_pointer_count(old, 4), 0)

    def test_a_specialised_away_argument_is_an_error(self):
        with self.assertRaisesRegex(ck.AbiError, "fewer than the ABI's 7"):
            ck.scratch_pointer_count(PTX, 7)


class Metadata(unittest.TestCase):
    def test_kernel_json_says_what_kbench_launches(self):
        desc = ck.load_descriptor(SOFTMAX)
        target = {"backend": "cuda", "arch": 90, "warp_size": 32}
        facts = ck.compiled_facts(fake_compiled(global_scratch_size=128, global_scratch_align=8))
        md = ck.build_metadata(desc, "f32", target, facts, "softmax_row.cubin", "3.4.0")
        self.assertEqual(md["format"], "kbench-triton-cubin/1")
        self.assertEqual(md["operation"], "softmax")
        self.assertEqual(md["entry"], "softmax_row_kernel")
        self.assertEqual(md["num_warps"], 4)
        self.assertEqual(md["num_ctas"], 1)
        self.assertEqual(md["shared_memory_bytes"], 64)
        self.assertEqual(md["launch"]["block"], [128, 1, 1])
        self.assertEqual(md["launch"]["grid"], ["rows", "1", "1"])
        self.assertEqual([p["role"] for p in md["abi"]["params"]],
                         ["input", "output", "dim", "dim"])
        self.assertEqual(md["abi"]["scratch_pointers"], 2)
        self.assertEqual(md["abi"]["scratch"][0],
                         {"name": "global_scratch", "bytes_per_program": 128, "align": 8})
        self.assertEqual(md["target"], target)
        self.assertEqual(md["binary"]["sha256"],
                         hashlib.sha256(b"\x7fELF fake cubin").hexdigest())
        self.assertEqual(md["constexprs"], {"BLOCK_SIZE": 1024})

    def test_writes_the_cubin_beside_kernel_json(self):
        desc = ck.load_descriptor(ADD)
        facts = ck.compiled_facts(fake_compiled(name="vector_add_kernel"))
        md = ck.build_metadata(desc, "f32", {"backend": "cuda", "arch": 90, "warp_size": 32},
                               facts, "vector_add.cubin", "3.4.0")
        with tempfile.TemporaryDirectory() as out:
            path = ck.write_outputs(out, desc, md, facts["cubin"])
            with open(path) as f:
                self.assertEqual(json.load(f)["entry"], "vector_add_kernel")
            with open(os.path.join(out, "vector_add.cubin"), "rb") as f:
                self.assertEqual(f.read(), b"\x7fELF fake cubin")


class Grid(unittest.TestCase):
    def test_integer_division_truncates_like_the_launcher(self):
        self.assertEqual(launch_grid.grid(["(n + 1023) / 1024", "1", "1"], {"n": 1025}),
                         (2, 1, 1))
        self.assertEqual(launch_grid.evaluate("rows", {"rows": 4096}), 4096)

    def test_anything_but_arithmetic_is_refused(self):
        for bad in ["__import__('os')", "n ** 2", "n / 0", "1.5"]:
            with self.assertRaises(ValueError, msg=bad):
                launch_grid.evaluate(bad, {"n": 8})


class PeerFlags(unittest.TestCase):
    def test_repeats_below_one_and_negative_quiesced_reps_are_usage_errors(self):
        import do_bench_peer
        for bad in (["--repeats", "0"], ["--quiesced", "-1"], ["--slab-gaps-kib", "0", "-4"],
                    ["--placements", "-1"]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as exit_:
                do_bench_peer.main([SOFTMAX, "--shape", "64", "64", *bad])
            self.assertEqual(exit_.exception.code, 2, bad)
            self.assertIn("--repeats must be at least 1", err.getvalue())


    def test_placement_gaps_are_drawn_as_kbench_draws_them(self):
        import do_bench_peer
        gaps = do_bench_peer.draw_gaps(16, 3)
        self.assertEqual(len(gaps), 16)
        self.assertEqual(gaps[0], 0)
        for gap in gaps[1:]:
            self.assertEqual(gap % 256, 0)
            self.assertTrue(256 <= gap <= 8 << 20, gap)
        self.assertEqual(gaps, do_bench_peer.draw_gaps(16, 3))
        self.assertNotEqual(gaps, do_bench_peer.draw_gaps(16, 4))


@unittest.skipIf(triton_compat.HAVE_TRITON, "Triton is installed here")
class WithoutTriton(unittest.TestCase):
    def test_compiling_says_triton_is_missing(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(ck.main([SOFTMAX, "--out-dir", out]), 2)
            self.assertEqual(os.listdir(out), [])

    def test_the_peer_says_triton_is_missing_and_checks_its_flags_first(self):
        import do_bench_peer
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(do_bench_peer.main(
                [SOFTMAX, "--shape", "64", "64", "--aot", "--specialize-for", "64x64"]), 2)
        self.assertIn("Triton 3.x is not installed", err.getvalue())
        err = io.StringIO()
        with contextlib.redirect_stderr(err):  # a shape of the wrong rank, before any Triton
            self.assertEqual(do_bench_peer.main(
                [SOFTMAX, "--shape", "64", "--aot", "--specialize-for", "64"]), 2)
        self.assertIn("has dims ['rows', 'cols']", err.getvalue())


if __name__ == "__main__":
    unittest.main()
