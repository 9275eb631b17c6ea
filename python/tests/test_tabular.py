"""Result tables without a daemon: the HTML a notebook shows is escaped and holds every row's
columns; to_pandas() says what to install where pandas is missing."""

import importlib.util
import unittest

from kbench.tabular import Tabular, TabularList, html_table

HAVE_PANDAS = importlib.util.find_spec("pandas") is not None


class Rows(Tabular):
    def __init__(self, rows):
        self._rows = rows

    def rows(self):
        return self._rows


class TabularTest(unittest.TestCase):
    def test_the_html_table_escapes_values_and_unites_columns(self):
        table = html_table([{"variant": "<b>x</b>"}, {"median_seconds": 1.5e-05}], "cap & co")
        self.assertIn("&lt;b&gt;x&lt;/b&gt;", table)
        self.assertNotIn("<b>x</b>", table)
        self.assertIn("<th>variant</th><th>median_seconds</th>", table)
        self.assertIn("<td>1.5e-05</td>", table)
        self.assertIn("<caption>cap &amp; co</caption>", table)

    def test_a_list_shows_all_its_items_rows(self):
        items = TabularList([Rows([{"a": 1}]), Rows([{"a": 2}, {"a": 3}])])
        self.assertEqual(items.rows(), [{"a": 1}, {"a": 2}, {"a": 3}])
        self.assertEqual(items._repr_html_().count("<tr>"), 4)  # the header and three rows

    @unittest.skipIf(HAVE_PANDAS, "pandas is installed")
    def test_to_pandas_without_pandas_says_what_to_install(self):
        with self.assertRaisesRegex(ImportError, "needs pandas"):
            Rows([{"a": 1}]).to_pandas()

    @unittest.skipUnless(HAVE_PANDAS, "pandas is not installed")
    def test_to_pandas_has_a_row_per_row(self):
        self.assertEqual(list(Rows([{"a": 1}, {"a": 2}]).to_pandas()["a"]), [1, 2])


if __name__ == "__main__":
    unittest.main()
