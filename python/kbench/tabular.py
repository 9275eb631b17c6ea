"""What every result type shares: rows of plain values, shown as a DataFrame by to_pandas()
(where pandas is installed) and as an HTML table in notebooks (_repr_html_, no pandas needed)."""

import html


class Tabular:
    """A mixin: a subclass returns its rows (dicts of plain values, one per table row)."""

    def rows(self):
        raise NotImplementedError

    def to_pandas(self):
        """The rows as a pandas.DataFrame; ImportError naming the package when pandas is
        missing (the client itself never needs it)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas (pip install pandas, or Debian's "
                              "python3-pandas)") from e
        return pandas.DataFrame(self.rows())

    def _repr_html_(self):
        return html_table(self.rows(), caption=self._caption())

    def _caption(self):
        return type(self).__name__


class TabularList(list, Tabular):
    """A list of Tabular items (jobs, history entries) whose table is all their rows."""

    def __init__(self, items=(), caption="", pages_left=False):
        super().__init__(items)
        self.caption = caption
        self.pages_left = pages_left

    def rows(self):
        return [row for item in self for row in item.rows()]

    def _caption(self):
        return self.caption or f"{len(self)} items"


def _cell(value):
    if isinstance(value, float):
        return f"{value:.6g}"
    return html.escape(str(value))


def html_table(rows, caption=""):
    """An escaped HTML table of the rows' union of keys, in first-seen order."""
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(row.get(c, ''))}</td>" for c in columns) +
                   "</tr>" for row in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
