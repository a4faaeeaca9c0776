"""The report's plot: one marker a root cause, the steps between them, the plateau after the last one."""

from __future__ import annotations

import re

from toolfuzz.outputs.svg_plot import Point, step_plot, ticks


def _circles(svg: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r'<circle [^>]*cx="([\d.]+)" cy="([\d.]+)"', svg)]


def test_each_point_is_one_marker_counted_up_in_the_order_of_x():
    svg = step_plot([Point(6, "c"), Point(1, "a"), Point(3, "b")], 10, "t", "seconds", "root causes")
    circles = _circles(svg)
    assert len(circles) == 3
    # Sorted by x, each one step higher (SVG's y grows downwards).
    assert [x for x, _ in circles] == sorted(x for x, _ in circles)
    assert circles[0][1] > circles[1][1] > circles[2][1]
    [points] = re.findall(r'<polyline class="steps" points="([^"]+)"', svg)
    # From the origin, across and up at each point, then flat to the run's end.
    assert len(points.split()) == 2 * 3 + 2
    assert re.findall(r"<title>([^<]*)</title>", svg)[1:] == ["a", "b", "c"]


def test_the_stretch_after_the_last_point_is_shaded_only_when_there_is_one():
    assert 'class="plateau"' in step_plot([Point(2, "a")], 10, "t", "x", "y")
    assert 'class="plateau"' not in step_plot([Point(10, "a")], 10, "t", "x", "y")


def test_no_point_draws_the_axes_and_says_so():
    svg = step_plot([], 0, "t", "x", "y")
    assert not _circles(svg) and "nothing found" in svg and svg.startswith("<svg") and svg.endswith("</svg>")


def test_every_text_is_escaped_and_nothing_is_loaded():
    svg = step_plot([Point(1, "<b>&</b>", css='x" onload="y')], 2, "<t>", "<x>", "<y>")
    assert "<b>" not in svg and "&lt;b&gt;&amp;&lt;/b&gt;" in svg and "<t>" not in svg
    assert 'onload="' not in svg and "http" not in svg


def test_ticks_are_round_numbers_from_zero_within_the_range():
    assert ticks(100) == [0, 20, 40, 60, 80, 100]
    assert ticks(8.7) == [0, 2, 4, 6, 8]
    assert ticks(3.2, whole=True) == [0, 1, 2, 3]
    assert ticks(1.08, whole=True) == [0, 1]
    assert ticks(0) == [0.0]
