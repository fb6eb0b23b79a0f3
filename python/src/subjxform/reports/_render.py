"""The one way every report (and the consumer-group reports) is shown: a :class:`Report` holds its findings
(``facts``), its rows (``df``), its text as parts (lines and tables) and a function that draws its
chart. The same parts give the plain text (``print(report)``), the notebook's HTML table
(``_repr_html_``, what Jupyter, Databricks and VS Code show for a cell's last value) and, with matplotlib,
the PNG that both the HTML and :meth:`Report.chart` show."""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame

CHART_INCHES = (10, 4.2)
CHART_DPI = 100
CHARTS_EXTRA = "pip install 'subjxform[reports]'"


@dataclass(frozen=True)
class Table:
    """A table of a report's text: ``rows`` of values (formatted by :func:`cell`), ``right`` the columns
    aligned right (numbers)."""

    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    right: Sequence[bool]

    def text(self) -> str:
        """Columns padded, numbers right-aligned, a rule of dashes under the header."""
        cells = [[cell(v) for v in r] for r in self.rows]
        widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(self.header)]

        def line(values):
            return "  ".join(
                v.rjust(w) if self.right[i] else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths))
            ).rstrip()

        return "\n".join([line(self.header), line(["-" * w for w in widths])] + [line(r) for r in cells])

    def html(self) -> str:
        def row(tag: str, values, formatted: bool) -> str:
            return (
                "<tr>"
                + "".join(
                    f'<{tag} style="text-align:{"right" if self.right[i] else "left"}">'
                    f"{html.escape(v if formatted else cell(v))}</{tag}>"
                    for i, v in enumerate(values)
                )
                + "</tr>"
            )

        return (
            "<table><thead>"
            + row("th", self.header, True)
            + "</thead><tbody>"
            + "".join(row("td", r, False) for r in self.rows)
            + "</tbody></table>"
        )


Part = str | Table


def cell(v: Any) -> str:
    """A value as a report's tables write it: ``-`` for None, yes/no, numbers with thousands separators."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def share(n: int, total: int) -> str:
    """n of total as a percentage with one decimal; a share that is not zero but would read 0.0% gets two
    significant digits instead, so that a key with 1 message of 100,000 reads 0.001%."""
    if not total:
        return "-"
    pct = 100.0 * n / total
    if n == 0 or pct >= 0.05:
        return f"{pct:.1f}%"
    return f"{pct:.{1 - math.floor(math.log10(pct))}f}".rstrip("0") + "%"


def category_bars(ax, totals: dict[str, int], colors: dict[str, str], title: str) -> None:
    """The chart of a report that counts messages per category (config diff, server upgrade): a bar each,
    labelled with its count and share."""
    total = sum(totals.values())
    bars = ax.bar(list(totals), [totals[c] for c in totals], color=[colors[c] for c in totals])
    ax.bar_label(bars, labels=[f"{totals[c]:,} ({share(totals[c], total)})" for c in totals], fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_ylabel("messages")
    ax.set_title(title)


def _text(parts: Sequence[Part]) -> str:
    return "\n".join(p.text() if isinstance(p, Table) else p for p in parts)


@dataclass
class Report:
    """One report: ``df`` (Spark DataFrame of its rows), ``text`` (readable table), ``facts`` (findings).

    ``str(report)`` is its ``text``; :meth:`chart` draws its picture; in a notebook, a report that is a cell's
    last value shows its tables and its chart.

    Examples:
        >>> report = rule_coverage(traffic, table, key="id")  # doctest: +SKIP
        >>> print(report); report.facts["never_fire"]; report.chart("coverage.png")  # doctest: +SKIP
    """

    title: str
    df: DataFrame
    facts: dict
    parts: Sequence[Part] = ()
    _draw: Callable[[Any], None] | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """The report as plain text: its lines and tables."""
        return _text(self.parts)

    def __str__(self) -> str:
        return self.text

    @property
    def has_chart(self) -> bool:
        """Whether the report has a picture (:meth:`chart` draws it)."""
        return self._draw is not None

    def _png(self) -> bytes:
        """The chart as PNG bytes (10 x 4.2 inches at 100 dpi)."""
        assert self._draw is not None
        try:
            import matplotlib
        except ImportError:
            raise ImportError(f"Report.chart() needs matplotlib: {CHARTS_EXTRA}") from None

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=CHART_INCHES)
        try:
            self._draw(fig)
            fig.tight_layout()
            out = io.BytesIO()
            fig.savefig(out, format="png", dpi=CHART_DPI)
        finally:
            plt.close(fig)
        return out.getvalue()

    def chart(self, path: str | Path) -> Path | None:
        """Writes the report's picture as a PNG at ``path`` (its folder made if need be); None when the
        report has none.

        Args:
            path: the PNG file to write (10 x 4.2 inches at 100 dpi).

        Returns:
            The path written, or None.

        Raises:
            ImportError: matplotlib is not installed (the ``reports`` extra).

        Examples:
            >>> report.chart("target/coverage.png")  # doctest: +SKIP
            PosixPath('target/coverage.png')
        """
        if self._draw is None:
            return None
        png = self._png()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return path

    def _repr_html_(self) -> str:
        """What a notebook shows for a report that is a cell's last value: its text's lines and tables as
        HTML, then its chart (inline PNG; without matplotlib, a line saying which extra draws it)."""
        out = ['<div class="subjxform-report">']
        for i, part in enumerate(self.parts):
            if isinstance(part, Table):
                out.append(part.html())
            elif i == 0:
                out.append(f"<p><b>{html.escape(part)}</b></p>")
            else:
                out.append(f'<pre style="margin:0">{html.escape(part)}</pre>')
        if self._draw is not None:
            try:
                png = base64.b64encode(self._png()).decode("ascii")
                out.append(f'<img alt="{html.escape(self.title)}" src="data:image/png;base64,{png}"/>')
            except ImportError:
                out.append(f"<p>(the chart needs matplotlib: {html.escape(CHARTS_EXTRA)})</p>")
        out.append("</div>")
        return "\n".join(out)
