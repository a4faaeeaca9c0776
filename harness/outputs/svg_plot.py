"""A cumulative count drawn as an inline SVG step plot: the HTML report's root causes over time.

Drawn here, as text, so that the report needs no script, no library and no
network: a browser shows it as it opens the file, offline.  One marker a
point (a root cause, where it was first met), the steps between them, and
the stretch after the last one shaded: a long plateau says the run stopped finding anything new well before it ended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Callable

__all__ = ["Point", "step_plot"]

#: The drawing's size in SVG units; the page scales it to the width it has.
WIDTH, HEIGHT = 520, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 18, 30, 44


@dataclass(frozen=True)
class Point:
    """One counted thing at ``x``; ``label`` is its tooltip, ``css`` the class of its marker."""

    x: float
    label: str
    css: str = ""


def step_plot(points: list[Point], end: float, title: str, x_label: str, y_label: str) -> str:
    """``points`` counted up as ``x`` grows from 0 to ``end`` (the run's total), one marker each."""
    ordered = sorted(points, key=lambda p: p.x)
    end = max([end, *(p.x for p in ordered), 1e-9])
    # Headroom above the last step, so that its marker does not sit on the frame.
    top = max(len(ordered), 1) * 1.08
    width, height = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def at(x: float, y: float) -> tuple[float, float]:
        return _LEFT + width * x / end, _TOP + height * (1 - y / top)

    out = [f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img">',
           f"<title>{escape(title)}</title>",
           f'<text class="plot-title" x="{_LEFT}" y="{_TOP - 12}">{escape(title)}</text>']
    out += _axes(end, top, at, x_label, y_label)
    if ordered and ordered[-1].x < end:
        # The plateau: from the last new point to the run's end nothing new was met.
        x0, y0 = at(ordered[-1].x, top)
        x1, y1 = at(end, 0)
        out.append(f'<rect class="plateau" x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}"/>')
    steps = [at(0, 0)]
    for n, point in enumerate(ordered):
        steps += [at(point.x, n), at(point.x, n + 1)]
    steps.append(at(end, len(ordered)))
    out.append('<polyline class="steps" points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in steps) + '"/>')
    for n, point in enumerate(ordered):
        x, y = at(point.x, n + 1)
        css = f"point {point.css}".strip()
        out.append(f'<circle class="{escape(css)}" cx="{x:.1f}" cy="{y:.1f}" r="4">'
                   f"<title>{escape(point.label)}</title></circle>")
    if not ordered:
        x, y = at(end / 2, top / 2)
        out.append(f'<text class="empty" x="{x:.1f}" y="{y:.1f}" text-anchor="middle">nothing found</text>')
    out.append("</svg>")
    return "\n".join(out)


def _axes(end: float, top: float, at: Callable[[float, float], tuple[float, float]], x_label: str,
          y_label: str) -> list[str]:
    (x0, y0), (x1, y1) = at(0, 0), at(end, top)
    out = [f'<line class="axis" x1="{x0}" y1="{y0}" x2="{x1:.1f}" y2="{y0}"/>',
           f'<line class="axis" x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1:.1f}"/>']
    for tick in ticks(end):
        x, _ = at(tick, 0)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1:.1f}"/>')
        out.append(f'<text class="tick" x="{x:.1f}" y="{y0 + 16}" text-anchor="middle">{_number(tick)}</text>')
    for tick in ticks(top, whole=True):
        _, y = at(0, tick)
        out.append(f'<line class="grid" x1="{x0}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}"/>')
        out.append(f'<text class="tick" x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{_number(tick)}</text>')
    out.append(f'<text class="label" x="{(x0 + x1) / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
               f"{escape(x_label)}</text>")
    out.append(f'<text class="label" transform="translate(14 {(y0 + y1) / 2:.1f}) rotate(-90)" '
               f'text-anchor="middle">{escape(y_label)}</text>')
    return out


def ticks(top: float, whole: bool = False, most: int = 6) -> list[float]:
    """Round values from 0 to ``top``, at most ``most`` of them: steps of 1, 2 or 5 times a power of ten."""
    if top <= 0:
        return [0.0]
    raw = top / (most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if whole:
        step = max(1.0, math.ceil(step))
    count = int(math.floor(top / step + 1e-9))
    return [round(k * step, 10) for k in range(count + 1)]


def _number(value: float) -> str:
    return f"{value:g}" if value < 1e5 else f"{value:.0e}"
