"""SVG line charts: valid XML, identical bytes for identical input, safe on edge cases."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.evals.plots import Series, line_chart, write_svg

_NS = "{http://www.w3.org/2000/svg}"


def _series() -> list[Series]:
    return [
        Series("chunks 96/16 hybrid", ((1, 0.41), (10, 0.47), (60, 0.52), (100, 0.5))),
        Series("chunks 256/32 hybrid", ((1, 0.38), (10, 0.45), (60, 0.49), (100, 0.49))),
    ]


def _texts(svg: str) -> list[str]:
    return [e.text or "" for e in ET.fromstring(svg).iter(f"{_NS}text")]


def _frame(svg: str) -> tuple[float, float, float, float]:
    """The plot area as (left, top, right, bottom): the rect drawn without fill."""
    (rect,) = [r for r in ET.fromstring(svg).iter(f"{_NS}rect") if r.get("fill") == "none"]
    left, top = float(rect.get("x", "")), float(rect.get("y", ""))
    return left, top, left + float(rect.get("width", "")), top + float(rect.get("height", ""))


def _polyline_points(svg: str) -> list[tuple[float, float]]:
    return [
        (float(x), float(y))
        for polyline in ET.fromstring(svg).iter(f"{_NS}polyline")
        for x, y in (pair.split(",") for pair in polyline.get("points", "").split())
    ]


def test_chart_is_valid_svg_with_title_axes_and_legend() -> None:
    svg = line_chart("nDCG@10 vs rrf_k", "rrf_k", "nDCG@10", _series(), x_log=True)
    root = ET.fromstring(svg)
    assert root.tag == f"{_NS}svg"
    texts = _texts(svg)
    assert {"nDCG@10 vs rrf_k", "rrf_k", "nDCG@10"} <= set(texts)
    assert {"1", "10", "100"} <= set(texts)  # log ticks
    assert svg.endswith("</svg>\n")


def test_same_input_same_bytes() -> None:
    first = line_chart("t", "x", "y", _series(), x_log=True, y_range=(0.0, 1.0))
    second = line_chart("t", "x", "y", list(_series()), x_log=True, y_range=(0.0, 1.0))
    assert first.encode() == second.encode()


def test_every_series_is_in_the_legend_with_its_own_colour_and_shape() -> None:
    series = [Series(f"s{i}", ((0, i), (1, i + 1))) for i in range(7)]
    svg = line_chart("t", "x", "y", series)
    assert {s.name for s in series} <= set(_texts(svg))
    strokes = [e.get("stroke") for e in ET.fromstring(svg).iter(f"{_NS}polyline")]
    assert len(set(strokes)) == 7
    assert "<circle" in svg
    assert "<polygon" in svg


def test_text_is_escaped() -> None:
    svg = line_chart("a < b & c > d", "x <i>", "y & z", [Series("<&>", ((0, 0), (1, 1)))])
    assert "a &lt; b &amp; c &gt; d" in svg
    texts = _texts(svg)  # parsing would fail if anything were left raw
    assert {"a < b & c > d", "x <i>", "y & z", "<&>"} <= set(texts)


def test_characters_xml_forbids_are_replaced() -> None:
    svg = line_chart("bell\x07", "x", "y", [])
    assert "bell\ufffd" in _texts(svg)


def test_points_fall_inside_the_plot_area() -> None:
    svg = line_chart("t", "x", "y", _series(), x_log=True, y_range=(0.0, 1.0))
    left, top, right, bottom = _frame(svg)
    circles = list(ET.fromstring(svg).iter(f"{_NS}circle"))
    inside = [
        (float(c.get("cx", "")), float(c.get("cy", "")))
        for c in circles
        if float(c.get("cy", "")) < bottom  # the legend's markers sit below the frame
    ]
    assert len(inside) == 4  # the first series is drawn with circles
    assert all(left < x < right and top < y < bottom for x, y in inside)
    # x = 10 is halfway between 1 and 100 on a log axis; y = 0.47 of 0..1 from the bottom
    x, y = inside[1]
    assert x == pytest.approx((left + right) / 2, abs=0.01)
    assert y == pytest.approx(bottom - 8 - 0.47 * (bottom - top - 16), abs=0.01)


def test_no_series_says_no_data() -> None:
    svg = line_chart("empty", "x", "y", [])
    assert "no data" in _texts(svg)
    assert "no data" in _texts(line_chart("empty", "x", "y", [Series("none", ())], x_log=True))


def test_single_point_and_flat_series() -> None:
    single = line_chart("t", "x", "y", [Series("one", ((5.0, 0.5),))])
    assert "<polyline" not in single
    assert len(ET.fromstring(single).findall(f"{_NS}circle")) == 2  # the point and its legend
    flat = line_chart("t", "x", "y", [Series("flat", ((0, 0.0), (1, 0.0), (2, 0.0)))])
    assert "nan" not in flat
    assert "inf" not in flat
    ET.fromstring(flat)


def test_spans_too_small_to_show_are_drawn_flat_and_inside() -> None:
    for points in (((0.0, 0.0), (0.0, 3e-202)), ((1.0, 1.0), (1.0000000000000002, 1.0))):
        svg = line_chart("t", "x", "y", [Series("tiny", points)])
        left, top, right, bottom = _frame(svg)
        (first, second) = _polyline_points(svg)
        assert first[1] == pytest.approx(second[1], abs=0.01)  # no magnified rounding noise
        assert all(left <= x <= right and top <= y <= bottom for x, y in (first, second))


def test_invalid_points_are_rejected_with_the_series_name() -> None:
    with pytest.raises(InvalidArgument, match="'a' has x = 0"):
        line_chart("t", "x", "y", [Series("a", ((0, 0.5),))], x_log=True)
    with pytest.raises(InvalidArgument, match="outside y_range"):
        line_chart("t", "x", "y", [Series("a", ((1, 1.5),))], y_range=(0.0, 1.0))
    for bad in (float("nan"), float("inf"), 1e301):
        with pytest.raises(InvalidArgument, match="within 1e300"):
            line_chart("t", "x", "y", [Series("a", ((1, bad),))])
    with pytest.raises(InvalidArgument, match="y_range"):
        line_chart("t", "x", "y", [], y_range=(1.0, 0.0))
    with pytest.raises(InvalidArgument, match="too small"):
        line_chart("t", "x", "y", [], width=10)


_coordinate = st.floats(-1e300, 1e300)
_positive = st.floats(1e-300, 1e300)


@given(st.lists(st.lists(st.tuples(_coordinate, _coordinate), max_size=6).map(tuple), max_size=4))
def test_any_plottable_points_give_parseable_svg_inside_the_frame(
    lists: list[tuple[tuple[float, float], ...]],
) -> None:
    svg = line_chart("t", "x", "y", [Series(f"s{i}", p) for i, p in enumerate(lists)])
    left, top, right, bottom = _frame(svg)
    for x, y in _polyline_points(svg):
        assert left <= x <= right
        assert top <= y <= bottom
    assert len(svg) < 20_000  # no runaway ticks or labels


@given(st.lists(st.tuples(_positive, st.floats(0, 1)), min_size=1, max_size=6).map(tuple))
def test_any_positive_x_fits_a_log_axis(points: tuple[tuple[float, float], ...]) -> None:
    svg = line_chart("t", "x", "y", [Series("s", points)], x_log=True, y_range=(0.0, 1.0))
    left, top, right, bottom = _frame(svg)
    for x, y in _polyline_points(svg):
        assert left <= x <= right
        assert top <= y <= bottom
    assert len(svg) < 20_000


def test_write_svg_is_atomic_and_uses_lf(tmp_path: Path) -> None:
    target = tmp_path / "plots" / "chart.svg"
    write_svg(target, "<svg>\r\n</svg>\n")
    assert target.read_bytes() == b"<svg>\n</svg>\n"
    write_svg(target, "<svg/>\n")
    assert target.read_bytes() == b"<svg/>\n"
    assert sorted(os.listdir(target.parent)) == ["chart.svg"]  # no temporary left behind


def test_write_svg_leaves_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "chart.svg"
    write_svg(target, "<svg/>\n")
    with pytest.raises(UnicodeEncodeError):
        write_svg(target, "\ud800")  # a lone surrogate cannot be encoded
    assert target.read_bytes() == b"<svg/>\n"
    assert os.listdir(tmp_path) == ["chart.svg"]
