"""``toolfuzz corpus check``'s report: each recorded cell under its class, then one line for the whole corpus."""

from __future__ import annotations

from toolfuzz.corpus.check import CLASSES, CheckReport
from toolfuzz.corpus.fixtures import printable
from toolfuzz.corpus.replay import fixed_in

__all__ = ["render_check"]


def render_check(result: CheckReport) -> str:
    lines = []
    for name in CLASSES:
        cells = result.classes[name]
        lines.append(f"{name}: {len(cells)}")
        for c in cells:
            shown = c.shown
            what = fixed_in(c) if c.verdict == "fixed" else (
                f"{shown.kind}: {shown.detail}" if shown else c.detail or c.state)
            if name in ("changed", "must fail, passes"):
                what += c.recorded_note()
            lines.append(_one_line(f"  {c.target}  {c.fixture.path}  {what}"))
            if c.fixture.fixture.statement:
                lines.append(_one_line(f"    {c.fixture.fixture.statement}"))
    unreadable = result.report.unreadable
    lines.append(f"unreadable: {len(unreadable)}")
    lines.extend(_one_line(f"  {u.path}  {u.problem}") for u in unreadable)
    agree = len(result.report.fixtures) - len(result.classes["reference disagrees"])
    lines.append("")
    lines.append(("FAIL" if result.exit_code else "pass") +
                 f": {len(result.report.fixtures)} fixtures, the reference agrees with {agree}"
                 + (f"; {len(unreadable)} could not be read" if unreadable else ""))
    return "\n".join(lines) + "\n"


def _one_line(text: str, limit: int = 400) -> str:
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else text[:limit - 3] + "..."
