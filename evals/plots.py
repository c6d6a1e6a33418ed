"""Deterministic SVG line charts for eval reports, with no plotting dependency.

The same series give the same bytes on every run and platform: coordinates are printed
with two decimals, there are no timestamps or generated ids, and the text is XML-escaped.
Axis ticks fall on 1-2-5 steps (P. S. Heckbert, "Nice Numbers for Graph Labels",
Graphics Gems, 1990); ``x_log`` spaces the x axis by ``log10`` for knobs such as
``rrf_k`` that span orders of magnitude. Series are told apart by both colour, from the
Okabe-Ito colour-blind-safe palette (M. Okabe and K. Ito, "Color Universal Design", 2002),
and marker shape, so the chart survives grey-scale printing.

    >>> svg = line_chart("nDCG@10 vs rrf_k", "rrf_k", "nDCG@10",
    ...                  [Series("hybrid", ((1, 0.41), (10, 0.47), (60, 0.52)))], x_log=True)
    >>> svg.startswith("<svg")
    True
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from ragward.errors import InvalidArgument
from ragward.evals.files import write_atomic

__all__ = ["Series", "line_chart", "write_svg"]

# Okabe-Ito without yellow, which is unreadable on white, and with black last.
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
# Unit polygons (None is a circle); 6 shapes and 7 colours repeat together only after 42.
_SHAPES: tuple[tuple[tuple[float, float], ...] | None, ...] = (
    None,
    ((-1, -1), (1, -1), (1, 1), (-1, 1)),
    ((0, -1.3), (1.2, 0.9), (-1.2, 0.9)),
    ((0, -1.4), (1.4, 0), (0, 1.4), (-1.4, 0)),
    ((0, 1.3), (1.2, -0.9), (-1.2, -0.9)),
    ((-0.4, -1.3), (0.4, -1.3), (0.4, -0.4), (1.3, -0.4), (1.3, 0.4), (0.4, 0.4),
     (0.4, 1.3), (-0.4, 1.3), (-0.4, 0.4), (-1.3, 0.4), (-1.3, -0.4), (-0.4, -0.4)),
)  # fmt: skip
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 36, 48  # margins around the plot area
_LIMIT, _TINY = 1e300, 1e-300  # beyond these the axis arithmetic would overflow
_INSET = 8  # keeps markers at the ends of an axis off the frame
_ROW, _CHAR = 18, 7.0  # legend row height and the width of an average 12 px character
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Series:
    """One named line: ``(x, y)`` points, joined in the order given."""

    name: str
    points: tuple[tuple[float, float], ...]


def line_chart(
    title: str,
    x_label: str,
    y_label: str,
    series: Sequence[Series],
    *,
    width: int = 640,
    height: int = 400,
    x_log: bool = False,
    y_range: tuple[float, float] | None = None,
) -> str:
    """An SVG line chart of ``series``, as text ending in a newline.

    ``width`` and ``height`` size the axes and title; the legend adds one 18 px row per
    line of entries below them, so many series never squeeze the plot. ``y_range`` fixes
    the y axis (``(0, 1)`` for most metrics); otherwise it spans the data on nice ticks.
    With no points at all, the chart says "no data".
    """
    if width < 200 or height < 150:
        raise InvalidArgument(f"chart size {width}x{height} is too small; use at least 200x150")
    _check(series, x_log, y_range)
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    if x_log:
        x_lo, x_hi, x_ticks = _log_axis(min(xs, default=1.0), max(xs, default=10.0))
    else:
        x_lo, x_hi, x_ticks = _linear_axis(min(xs, default=0.0), max(xs, default=1.0), None)
    y_lo, y_hi, y_ticks = _linear_axis(min(ys, default=0.0), max(ys, default=1.0), y_range)
    left, right, top, bottom = _LEFT, width - _RIGHT, _TOP, height - _BOTTOM

    def px(x: float) -> float:
        if x_log:
            x, lo, hi = math.log10(x), math.log10(x_lo), math.log10(x_hi)
        else:
            lo, hi = x_lo, x_hi
        return left + _INSET + (x - lo) / (hi - lo) * (right - left - 2 * _INSET)

    def py(y: float) -> float:
        return bottom - _INSET - (y - y_lo) / (y_hi - y_lo) * (bottom - top - 2 * _INSET)

    names = [s.name for s in series]
    column = min(right - left, 36 + _CHAR * max((len(n) for n in names), default=0))
    per_row = max(1, int((right - left) // column))
    rows = math.ceil(len(series) / per_row)
    total = height + (rows * _ROW + 8 if rows else 0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
        f'viewBox="0 0 {width} {total}" font-family="sans-serif" font-size="12">',
        f"<title>{_text(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{total}" fill="#ffffff"/>',
        f'<text x="{width / 2:.2f}" y="22" text-anchor="middle" font-size="15">'
        f"{_text(title)}</text>",
    ]
    for value, label in y_ticks:
        y = py(value)
        out.append(f'<line x1="{left}" y1="{y:.2f}" x2="{right}" y2="{y:.2f}" stroke="#dddddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.2f}" text-anchor="end">{label}</text>')
    for value, label in x_ticks:
        x = px(value)
        out.append(f'<line x1="{x:.2f}" y1="{top}" x2="{x:.2f}" y2="{bottom}" stroke="#dddddd"/>')
        out.append(f'<text x="{x:.2f}" y="{bottom + 16}" text-anchor="middle">{label}</text>')
    out.append(
        f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
        'fill="none" stroke="#333333"/>'
    )
    out.append(
        f'<text x="{(left + right) / 2:.2f}" y="{bottom + 36}" text-anchor="middle">'
        f"{_text(x_label)}</text>"
    )
    middle = (top + bottom) / 2
    out.append(
        f'<text x="16" y="{middle:.2f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {middle:.2f})">{_text(y_label)}</text>'
    )
    if not xs:
        out.append(
            f'<text x="{(left + right) / 2:.2f}" y="{middle:.2f}" text-anchor="middle" '
            'fill="#666666">no data</text>'
        )
    for number, line in enumerate(series):
        colour = _COLOURS[number % len(_COLOURS)]
        shape = _SHAPES[number % len(_SHAPES)]
        where = [(px(x), py(y)) for x, y in line.points]
        if len(where) > 1:
            path = " ".join(f"{x:.2f},{y:.2f}" for x, y in where)
            out.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        out.extend(_marker(shape, x, y, colour) for x, y in where)
        row, place = divmod(number, per_row)
        x, y = left + place * column, height + 4 + row * _ROW + _ROW / 2
        out.append(
            f'<line x1="{x:.2f}" y1="{y:.2f}" x2="{x + 24:.2f}" y2="{y:.2f}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        out.append(_marker(shape, x + 12, y, colour))
        out.append(f'<text x="{x + 30:.2f}" y="{y + 4:.2f}">{_text(line.name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _check(series: Sequence[Series], x_log: bool, y_range: tuple[float, float] | None) -> None:
    if y_range is not None and not (-_LIMIT <= y_range[0] < y_range[1] <= _LIMIT):
        raise InvalidArgument(f"y_range {y_range!r} must be two numbers within 1e300, low < high")
    for line in series:
        for x, y in line.points:
            if not (abs(x) <= _LIMIT and abs(y) <= _LIMIT):  # also false for nan
                raise InvalidArgument(
                    f"series {line.name!r} has the point ({x}, {y}); plot values within 1e300"
                )
            if x_log and not x >= _TINY:
                raise InvalidArgument(
                    f"series {line.name!r} has x = {x} on a log axis; use x >= 1e-300"
                )
            if y_range is not None and not y_range[0] <= y <= y_range[1]:
                raise InvalidArgument(
                    f"series {line.name!r} has y = {y} outside y_range {y_range}; widen it"
                )


def _nice(value: float, *, rounded: bool) -> float:
    """A 1, 2 or 5 times a power of ten near ``value`` (Heckbert 1990)."""
    exponent = math.floor(math.log10(value))
    fraction = value / 10.0**exponent
    limits = (1.5, 3.0, 7.0) if rounded else (1.0, 2.0, 5.0)
    nice = next((n for n, limit in zip((1, 2, 5), limits, strict=True) if fraction <= limit), 10)
    return nice * 10.0**exponent


def _linear_axis(
    low: float, high: float, fixed: tuple[float, float] | None
) -> tuple[float, float, list[tuple[float, str]]]:
    """Axis bounds and ``(value, label)`` ticks on 1-2-5 steps."""
    if fixed is not None:
        low, high = fixed
    elif high - low <= max(1e-9 * max(abs(low), abs(high)), 1e-200):
        # flat (or flat but for rounding): centre the line instead of magnifying noise
        middle = (low + high) / 2
        pad = abs(middle) * 0.1 if abs(middle) > 1e-100 else 1.0  # either way > the span
        low, high = middle - pad, middle + pad
    step = _nice(_nice(high - low, rounded=False) / 4, rounded=True)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    if fixed is not None:
        first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    else:
        low, high = first * step, last * step
    places = -math.floor(math.log10(step) + 1e-9)  # decimals that tell two ticks apart
    size = max(abs(low), abs(high))
    if 0 <= places <= 6 and size < 1e9:
        return low, high, [(k * step, f"{k * step:.{places}f}") for k in range(first, last + 1)]
    digits = max(1, min(17, math.floor(math.log10(size)) + places + 1))
    return low, high, [(k * step, f"{k * step:.{digits}g}") for k in range(first, last + 1)]


def _log_axis(low: float, high: float) -> tuple[float, float, list[tuple[float, str]]]:
    """Decades around the data, ticked at 1, 2 and 5 (only 1 past three decades)."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    if first == last:
        first, last = first - 1, last + 1
    # At most ten labelled decades, on multiples of the stride; since the data lie within
    # 1e-300..1e300 and 300 is a multiple of every stride, the bounds stay finite.
    stride = next(s for s in (1, 2, 5, 10, 20, 50, 100) if (last - first) / s <= 10)
    first, last = stride * math.floor(first / stride), stride * math.ceil(last / stride)
    multiples = (1, 2, 5) if last - first <= 3 else (1,)
    ticks = [
        (m * 10.0**e, f"{m}e{e}" if abs(e) > 6 else f"{m * 10.0**e:.{max(0, -e)}f}")
        for e in range(first, last + 1, stride)
        for m in multiples
        if e < last or m == 1
    ]
    return 10.0**first, 10.0**last, ticks


def _marker(shape: tuple[tuple[float, float], ...] | None, x: float, y: float, fill: str) -> str:
    if shape is None:
        return f'<circle cx="{x:.2f}" cy="{y:.2f}" r="4" fill="{fill}"/>'
    points = " ".join(f"{x + 3.5 * dx:.2f},{y + 3.5 * dy:.2f}" for dx, dy in shape)
    return f'<polygon points="{points}" fill="{fill}"/>'


def _text(value: str) -> str:
    return escape(_NOT_XML.sub("\ufffd", value))


def write_svg(path: str | os.PathLike[str], svg: str) -> None:
    """Write ``svg`` to ``path`` with ``\\n`` newlines, atomically.

    The bytes go to a new file beside ``path``, are flushed to disk, and only then replace
    ``path`` (``os.replace``), so a reader sees the old chart or the new one, never half.
    The file is created like any other (permissions follow the umask).
    """
    write_atomic(path, svg)
