"""agreement_table.py on synthetic rounds: the difference, its interval and the table."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agreement_table as at  # noqa: E402


class AgreementTableTest(unittest.TestCase):
    def test_a_timer_one_percent_slower_shows_plus_one_percent_inside_its_interval(self):
        ref = [1.00e-3, 1.01e-3, 0.99e-3, 1.00e-3, 1.005e-3, 0.995e-3]
        slow = [x * 1.01 for x in ref]
        change, low, high = at.difference(slow, ref)
        self.assertAlmostEqual(change, 1.0, places=6)
        self.assertLess(low, 1.0)
        self.assertGreater(high, 1.0)
        # Same spread on both sides: the interval excludes 0 only if the shift beats the noise.
        self.assertGreater(low, -1.0)

    def test_identical_timers_differ_by_nothing(self):
        xs = [2e-6, 2.1e-6, 1.9e-6]
        change, low, high = at.difference(xs, xs)
        self.assertAlmostEqual(change, 0.0, places=9)
        self.assertLess(low, 0.0)
        self.assertGreater(high, 0.0)

    def test_t_quantile_matches_the_tables(self):
        self.assertAlmostEqual(at.t975(1), 12.706, places=3)
        self.assertAlmostEqual(at.t975(10), 2.228, places=3)
        self.assertAlmostEqual(at.t975(10.5), (2.228 + 2.201) / 2, places=3)
        self.assertLess(abs(at.t975(120) - 1.980), 0.002)

    def test_markdown_has_a_row_per_case_and_timer_with_the_reference_marked(self):
        lines = [
            '{"case": "sgemm 4096^3", "method": "do_bench", "round": 0, "seconds": 0.01}',
            '{"case": "sgemm 4096^3", "method": "do_bench", "round": 1, "seconds": 0.0101}',
            '{"case": "sgemm 4096^3", "method": "kbench_cold", "round": 0, "seconds": 0.01002}',
            '{"case": "sgemm 4096^3", "method": "kbench_cold", "round": 1, "seconds": 0.01011}',
            '{"case": "sgemm 4096^3", "method": "cupti", "round": 0, "seconds": 0}',
        ]
        out = at.rows(at.load(lines))
        self.assertEqual([r["method"] for r in out], ["kbench_cold", "do_bench"])
        text = at.markdown(out)
        self.assertIn("| sgemm 4096^3 | do_bench | 2 |", text)
        self.assertIn("reference", text)
        self.assertRegex(text, r"\| sgemm 4096\^3 \| kbench_cold \| 2 \| 10\.06 ms \| \+0\.\d{3} %")
        self.assertTrue(math.isnan(at.difference([1.0], [1.0, 1.1])[1]))


if __name__ == "__main__":
    unittest.main()
