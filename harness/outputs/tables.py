"""Plain-text tables for a terminal: columns padded to their widest cell."""

from __future__ import annotations

from typing import Sequence

__all__ = ["aligned"]


def aligned(rows: Sequence[Sequence[str]], rule: bool = False, gap: str = "  ") -> str:
    """The rows as lines, each column as wide as its widest cell; ``rule`` puts dashes under the first row."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [gap.join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    if rule:
        lines.insert(1, gap.join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
