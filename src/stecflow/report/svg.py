"""Inline SVG figures for the report, drawn by our own small code (no matplotlib).

Three kinds of figure, all deterministic text (coordinates with one decimal, no
random IDs, no timestamps) and all self-contained (no fonts, no external links,
no ``style`` attributes, so that a strict Content Security Policy holds):

* :func:`interval_plot`: one measure's per-system means with confidence intervals;
* :func:`heatmap`: a correlation matrix coloured from -1 (blue) to +1 (red);
* :func:`scatter_plot`: any measure against any other over systems (automatic vs
  automatic now; intrinsic vs extrinsic human measures once judgments exist).

Every function returns an ``<svg>`` element as a string; every text from data is
XML-escaped here, so the caller may mark the result safe for the template.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from stecflow.report.formatting import fixed

__all__ = [
    "IntervalPoint",
    "ScatterPoint",
    "heatmap",
    "interval_plot",
    "nice_ticks",
    "scatter_plot",
]

#: Marker colours by kind of system.
COLOURS = {"system": "#1f5fa8", "reference": "#6b6b6b", "late": "#b3541e"}
_CHAR_WIDTH = 6.6  # approximate width of a 11px sans-serif character
_FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"'


def _n(value: float) -> str:
    """A coordinate: one decimal, no ``-0.0``."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _text(x: float, y: float, text: str, *, anchor: str = "start", **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}"{extra}>'
        f"{escape(text)}</text>"
    )


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]`` (steps of 1, 2 or 5 × 10^k).

    Examples
    --------
    >>> nice_ticks(5.9, 10.7)
    [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    >>> nice_ticks(0.0, 1.0)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(3.0, 3.0)
    [2.6, 2.8, 3.0, 3.2, 3.4]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high < low:
        low, high = high, low
    if high == low:
        pad = abs(low) * 0.1 or 1.0
        low, high = low - pad, high + pad
    raw = (high - low) / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(k * step, 10) + 0.0 for k in range(first, last + 1)]


def _tick_label(value: float, ticks: Sequence[float]) -> str:
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    digits = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return fixed(value, digits)


@dataclass(frozen=True)
class IntervalPoint:
    """One system's estimate and interval in an :func:`interval_plot`."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    kind: str = "system"


def interval_plot(
    points: Sequence[IntervalPoint],
    *,
    title: str,
    axis_label: str,
    note: str = "",
    width: int = 560,
) -> str:
    """Dot-and-whisker plot: one row per system, dot at the mean, bar for the CI.

    Parameters
    ----------
    points
        Systems in display order (missing values are drawn as "–").
    title
        Figure title (the measure and its direction).
    axis_label
        Label of the x axis.
    note
        Extra text under the axis (e.g. what the bars are).
    width
        Width of the figure in px.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> svg = interval_plot([IntervalPoint("A<1>", 6.41, 5.9, 6.95)],
    ...                     title="SE", axis_label="SE")
    >>> svg.startswith("<svg") and "A&lt;1&gt;" in svg
    True
    """
    label_width = min(
        240.0, max(80.0, max((len(p.label) for p in points), default=4) * _CHAR_WIDTH)
    )
    left, right, top, row_h = label_width + 16, 24.0, 34.0, 22.0
    height = top + row_h * max(len(points), 1) + 50 + (16 if note else 0)
    values = [
        v
        for p in points
        for v in (p.value, p.low, p.high)
        if v is not None and math.isfinite(v)
    ]
    ticks = nice_ticks(min(values), max(values)) if values else [0.0, 1.0]
    lo, hi = ticks[0], ticks[-1]
    plot_w = width - left - right

    def x_of(value: float) -> float:
        return left + (value - lo) / (hi - lo) * plot_w

    axis_y = top + row_h * max(len(points), 1) + 4
    parts = [
        f'<svg class="figure-svg" viewBox="0 0 {width} {_n(height)}" width="{width}"'
        f' height="{_n(height)}" role="img" {_FONT} font-size="11">',
        f"<title>{escape(title)}</title>",
        _text(left, 16, title, font_weight="600", font_size="12"),
    ]
    for tick in ticks:
        x = x_of(tick)
        parts.append(
            f'<line x1="{_n(x)}" y1="{_n(top - 6)}" x2="{_n(x)}" y2="{_n(axis_y)}"'
            ' stroke="#e3e3e3" stroke-width="1"/>'
        )
        parts.append(_text(x, axis_y + 14, _tick_label(tick, ticks), anchor="middle"))
    parts.append(
        f'<line x1="{_n(left)}" y1="{_n(axis_y)}" x2="{_n(left + plot_w)}"'
        f' y2="{_n(axis_y)}" stroke="#444" stroke-width="1"/>'
    )
    parts.append(_text(left + plot_w / 2, axis_y + 32, axis_label, anchor="middle"))
    if note:
        parts.append(
            _text(left + plot_w / 2, axis_y + 47, note, anchor="middle", fill="#555")
        )
    for i, point in enumerate(points):
        y = top + row_h * i + row_h / 2
        colour = COLOURS.get(point.kind, COLOURS["system"])
        parts.append(_text(left - 8, y + 4, point.label, anchor="end"))
        if point.value is None:
            parts.append(_text(left + 4, y + 4, "– (not computed)", fill="#777"))
            continue
        tip = fixed(point.value, 2)
        if point.low is not None and point.high is not None:
            tip += f" [{fixed(point.low, 2)}, {fixed(point.high, 2)}]"
            parts.append(
                f'<line x1="{_n(x_of(point.low))}" y1="{_n(y)}"'
                f' x2="{_n(x_of(point.high))}" y2="{_n(y)}" stroke="{colour}"'
                ' stroke-width="2"/>'
            )
            for end in (point.low, point.high):
                parts.append(
                    f'<line x1="{_n(x_of(end))}" y1="{_n(y - 5)}"'
                    f' x2="{_n(x_of(end))}" y2="{_n(y + 5)}" stroke="{colour}"'
                    ' stroke-width="1.5"/>'
                )
        fill = "#ffffff" if point.kind == "late" else colour
        parts.append(
            f'<circle cx="{_n(x_of(point.value))}" cy="{_n(y)}" r="4.5"'
            f' fill="{fill}" stroke="{colour}" stroke-width="1.5">'
            f"<title>{escape(point.label)}: {escape(tip)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _diverging(r: float) -> str:
    """Blue (-1) - white (0) - red (+1), as an ``rgb()`` colour."""
    r = max(-1.0, min(1.0, r))
    white, blue, red = (247, 247, 247), (33, 102, 172), (178, 24, 43)
    end = red if r >= 0 else blue
    t = abs(r)
    rgb = [round(w + (e - w) * t) for w, e in zip(white, end, strict=True)]
    return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"


def heatmap(
    labels: Sequence[str],
    values: Sequence[Sequence[float | None]],
    marks: Sequence[Sequence[str]],
    *,
    title: str,
    cell: int = 58,
) -> str:
    """A square heat map of correlations with the value and its marks in each cell.

    Parameters
    ----------
    labels
        Measure names, for rows and columns.
    values
        ``values[i][j]`` is r (``None`` where not computable).
    marks
        Significance marks per cell (``"*"``, ``"**"`` or ``""``).
    title
        Figure title.
    cell
        Cell size in px.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> svg = heatmap(["SE", "BLEU"], [[1.0, -0.84], [-0.84, 1.0]],
    ...               [["", "*"], ["*", ""]], title="r")
    >>> "-0.84*" in svg and "rgb(" in svg
    True
    """
    n = len(labels)
    label_w = min(200.0, max(60.0, max((len(s) for s in labels), default=3) * 7.0))
    left, top = label_w + 12, 40.0 + label_w * 0.62
    width = left + cell * n + max(20.0, label_w * 0.8)  # room for slanted labels
    legend_y = top + cell * n + 22
    height = legend_y + 40
    parts = [
        f'<svg class="figure-svg" viewBox="0 0 {_n(width)} {_n(height)}"'
        f' width="{_n(width)}" height="{_n(height)}" role="img" {_FONT}'
        ' font-size="11">',
        f"<title>{escape(title)}</title>",
        _text(8, 16, title, font_weight="600", font_size="12"),
    ]
    for j, label in enumerate(labels):
        x = left + cell * j + cell / 2
        parts.append(
            f'<text x="{_n(x)}" y="{_n(top - 8)}" text-anchor="start"'
            f' transform="rotate(-38 {_n(x)} {_n(top - 8)})">{escape(label)}</text>'
        )
    for i, row_label in enumerate(labels):
        y = top + cell * i
        parts.append(_text(left - 8, y + cell / 2 + 4, row_label, anchor="end"))
        for j in range(n):
            x = left + cell * j
            r = values[i][j]
            fill = "#dddddd" if r is None else _diverging(r)
            text = "n/a" if r is None else fixed(r, 2) + marks[i][j]
            ink = "#ffffff" if r is not None and abs(r) > 0.6 else "#111111"
            parts.append(
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{cell}" height="{cell}"'
                f' fill="{fill}" stroke="#ffffff" stroke-width="1">'
                f"<title>{escape(row_label)} × {escape(labels[j])}: "
                f"{escape(text)}</title></rect>"
            )
            parts.append(
                _text(x + cell / 2, y + cell / 2 + 4, text, anchor="middle", fill=ink)
            )
    # colour legend: 21 swatches from -1 to +1
    swatch = cell * n / 21
    for k in range(21):
        r = -1 + k * 0.1
        parts.append(
            f'<rect x="{_n(left + swatch * k)}" y="{_n(legend_y)}"'
            f' width="{_n(swatch + 0.5)}" height="10" fill="{_diverging(r)}"/>'
        )
    for r, anchor in ((-1.0, "start"), (0.0, "middle"), (1.0, "end")):
        x = left + cell * n * (r + 1) / 2
        parts.append(_text(x, legend_y + 24, fixed(r, 0), anchor=anchor))
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class _Placed:
    """A scatter point with both coordinates."""

    label: str
    x: float
    y: float
    kind: str


def _place_labels(
    shown: Sequence[_Placed],
    x_of: Callable[[float], float],
    y_of: Callable[[float], float],
    plot_w: float,
    left: float,
) -> list[tuple[_Placed, str, float, float, str]]:
    """Label positions: points drawn at the same spot share one label, and a
    label that would overlap an earlier one moves down a line (deterministic)."""
    placed: list[tuple[float, float, float, float]] = []  # label boxes
    spots: dict[tuple[int, int], list[str]] = {}
    for point in shown:
        spot = (round(x_of(point.x) / 3), round(y_of(point.y) / 3))
        spots.setdefault(spot, []).append(point.label)
    out = []
    done: set[tuple[int, int]] = set()
    for point in sorted(shown, key=lambda p: (y_of(p.y), x_of(p.x), p.label)):
        x, y = x_of(point.x), y_of(point.y)
        spot = (round(x / 3), round(y / 3))
        if spot in done:
            out.append((point, "", 0.0, 0.0, "start"))
            continue
        done.add(spot)
        label = ", ".join(spots[spot])
        anchor = "end" if x > left + plot_w * 0.6 else "start"
        lx = x - 6 if anchor == "end" else x + 6
        ly = y - 5
        width = len(label) * 5.6
        for _ in range(8):
            x0 = lx - width if anchor == "end" else lx
            box = (x0, ly - 9, x0 + width, ly + 2)
            if not any(
                box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                for b in placed
            ):
                break
            ly += 12
        placed.append(box)
        out.append((point, label, lx, ly, anchor))
    order = {id(p): n for n, p in enumerate(shown)}
    return sorted(out, key=lambda t: order[id(t[0])])


@dataclass(frozen=True)
class ScatterPoint:
    """One system in a :func:`scatter_plot`."""

    label: str
    x: float | None
    y: float | None
    kind: str = "system"


def scatter_plot(
    points: Sequence[ScatterPoint],
    *,
    x_label: str,
    y_label: str,
    title: str,
    width: int = 330,
    height: int = 290,
) -> str:
    """Scatter plot of one measure against another over systems, points labelled.

    Generic on purpose: x and y can be any two per-system measures (automatic,
    human intrinsic, extrinsic). Points with a missing coordinate are left out
    and listed under the plot.

    Examples
    --------
    >>> svg = scatter_plot([ScatterPoint("A", 1, 2), ScatterPoint("B", 2, 1),
    ...                     ScatterPoint("C", None, 1)],
    ...                    x_label="SE", y_label="BLEU", title="SE vs BLEU")
    >>> svg.count("<circle"), "not shown: C" in svg
    (2, True)
    """
    shown = [
        _Placed(p.label, p.x, p.y, p.kind)
        for p in points
        if p.x is not None and p.y is not None
    ]
    missing = [p.label for p in points if p.x is None or p.y is None]
    left, right, top, bottom = 52.0, 18.0, 30.0, 46.0 + (14 if missing else 0)
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [p.x for p in shown]
    ys = [p.y for p in shown]
    x_ticks = nice_ticks(min(xs), max(xs), 4) if xs else [0.0, 1.0]
    y_ticks = nice_ticks(min(ys), max(ys), 4) if ys else [0.0, 1.0]

    def x_of(v: float) -> float:
        return left + (v - x_ticks[0]) / (x_ticks[-1] - x_ticks[0]) * plot_w

    def y_of(v: float) -> float:
        return top + plot_h - (v - y_ticks[0]) / (y_ticks[-1] - y_ticks[0]) * plot_h

    parts = [
        f'<svg class="figure-svg" viewBox="0 0 {width} {height}" width="{width}"'
        f' height="{height}" role="img" {_FONT} font-size="10">',
        f"<title>{escape(title)}</title>",
        _text(8, 15, title, font_weight="600", font_size="12"),
        f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(plot_w)}"'
        f' height="{_n(plot_h)}" fill="none" stroke="#444" stroke-width="1"/>',
    ]
    for tick in x_ticks:
        parts.append(
            _text(
                x_of(tick),
                top + plot_h + 13,
                _tick_label(tick, x_ticks),
                anchor="middle",
            )
        )
    for tick in y_ticks:
        parts.append(
            _text(left - 5, y_of(tick) + 3, _tick_label(tick, y_ticks), anchor="end")
        )
    parts.append(_text(left + plot_w / 2, top + plot_h + 30, x_label, anchor="middle"))
    cy = top + plot_h / 2
    parts.append(
        f'<text x="12" y="{_n(cy)}" text-anchor="middle"'
        f' transform="rotate(-90 12 {_n(cy)})">{escape(y_label)}</text>'
    )
    for point, label, lx, ly, anchor in _place_labels(shown, x_of, y_of, plot_w, left):
        colour = COLOURS.get(point.kind, COLOURS["system"])
        fill = "#ffffff" if point.kind == "late" else colour
        x, y = x_of(point.x), y_of(point.y)
        tip = f"{point.label}: {fixed(point.x, 2)}, {fixed(point.y, 2)}"
        parts.append(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="4" fill="{fill}"'
            f' stroke="{colour}" stroke-width="1.5"><title>{escape(tip)}</title>'
            "</circle>"
        )
        if label:
            parts.append(_text(lx, ly, label, anchor=anchor, fill="#333"))
    if missing:
        parts.append(
            _text(
                left,
                height - 6,
                "not shown: " + ", ".join(missing),
                fill="#777",
            )
        )
    parts.append("</svg>")
    return "".join(parts)
