"""Plain-text tables for a terminal: columns padded to their widest cell, or fitted to the terminal's width.

The one place that says how wide a command's output may be (:func:`terminal_width`) and how a table is
made to fit it (:func:`fitted`): each :class:`Column` says whether it may be left out, lose its middle
or go on over continuation lines.  Text that is no table is folded to the same width with
:func:`hanging`.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from typing import Sequence, TextIO

__all__ = ["FLOOR", "MARK", "Column", "aligned", "fitted", "folded", "hanging", "middle", "terminal_width"]

#: No table is fitted narrower: below it names lose too much to be told apart, and a line the terminal
#: folds is easier to read than a name cut to a few letters.
FLOOR = 80
#: Where a name lost its middle.
MARK = "…"
#: The fewest letters of a target's name kept before the mark when its kind and features are kept whole.
_HEAD = 12
#: A column that wraps is not made narrower than this (or its header, or its longest word up to _LONG_WORD).
_NARROWEST_WRAP = 16
_LONG_WORD = 30
#: Nor one that shrinks narrower than this (or its header).
_NARROWEST_SHRINK = 12
_CRASH_STATE = re.compile(r"\[[^\[\]]*\]")


def terminal_width(stream: TextIO, wide: bool = False) -> int | None:
    """The width to fit what goes to ``stream`` to, at least :data:`FLOOR`; None for all of it, unfitted.

    None when ``wide`` asks for it, and when ``stream`` is no terminal and COLUMNS is not set: a pipe or a
    file is read by a program, by grep or in a CI log, which want every row, column and name whole, as
    these commands always printed them (and as the tests read them).  COLUMNS, when set, is the width
    whatever the stream, as ``COLUMNS=100 toolfuzz run 2>run.log`` asks.
    """
    if wide:
        return None
    named = os.environ.get("COLUMNS", "")
    if named.isdigit() and int(named) > 0:
        return max(FLOOR, shutil.get_terminal_size().columns)
    if not stream.isatty():
        return None
    try:
        # This stream's own terminal: standard error's when standard output is piped (shutil asks stdout's).
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = shutil.get_terminal_size().columns
    return max(FLOOR, columns)


def aligned(rows: Sequence[Sequence[str]], rule: bool = False, gap: str = "  ") -> str:
    """The rows as lines, each column as wide as its widest cell; ``rule`` puts dashes under the first row."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [gap.join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    if rule:
        lines.insert(1, gap.join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, its middle cut out where :data:`MARK` stands.

    Both ends tell rows apart.  A root cause's name is target/kind/features: the kind and features are
    kept whole while the target keeps enough of its start to be recognised, and a crash state in
    brackets, the longest and least telling part (its fixture holds it whole), is the first to go.
    """
    if len(text) <= width:
        return text
    if width <= len(MARK):
        return text[:width]
    text = _CRASH_STATE.sub(f"[{MARK}]", text)
    if len(text) <= width:
        return text
    head, slash, tail = text.partition("/")
    room = width - len(tail) - len(MARK) - len(slash)
    if slash and room >= _HEAD:
        return head[:room] + MARK + slash + tail
    if slash and width - _HEAD - len(MARK) - len(slash) >= _HEAD:
        # Too long a kind and features to keep whole: the target keeps its start, they keep both ends.
        return head[:_HEAD] + MARK + slash + _cut_middle(tail, width - _HEAD - len(MARK) - len(slash))
    return _cut_middle(text, width)


def _cut_middle(text: str, width: int) -> str:
    keep = width - len(MARK)
    return text[:(keep + 1) // 2] + MARK + text[len(text) - keep // 2:]


def folded(text: str, width: int, at: str = " ") -> list[str]:
    """``text`` in lines of at most ``width``, broken after an ``at`` (a list's ", ", a sentence's " ").

    An item of a list longer than a line is broken at its spaces, and a word longer than a line is cut.
    """
    if len(text) <= width:
        return [text]
    parts = text.split(at)
    lines: list[str] = []
    line = ""
    for n, part in enumerate(parts):
        after = at if n < len(parts) - 1 else ""
        if not line and not part.strip():
            continue
        if line and len((line + part + after).rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        if len((part + after).rstrip()) <= width:
            line += part + after
            continue
        # Alone on a line (the line before was full), and still too long for one; its separator with it.
        mark = after.rstrip()
        pieces = folded(part + mark, width) if at != " " else [part[i:i + width] for i in range(0, len(part), width)]
        lines += pieces[:-1]
        line = pieces[-1] + after[len(mark):]
    if line.strip():
        lines.append(line.rstrip())
    return lines


def hanging(line: str, width: int | None, indent: int) -> list[str]:
    """``line`` folded to ``width`` (None: as it is), its continuation lines indented by ``indent``."""
    if width is None or len(line) <= width:
        return [line]
    body = line.lstrip(" ")
    first = line[:len(line) - len(body)] + folded(body, max(width - len(line) + len(body), 1))[0]
    rest = folded(line[len(first):].strip(), max(width - indent, 1))
    return [first] + [" " * indent + r for r in rest]


@dataclass(frozen=True)
class Column:
    """A column's header and what may be done to it when its table is wider than the terminal."""

    header: str
    shrink: bool = False  # a name: may lose its middle (middle)
    wrap: str = ""  # a list or a sentence: may go on over continuation lines, broken after this (folded)
    drop: int = 0  # left out when there is no room, 1 first, then 2, ...; 0 never


def fitted(rows: Sequence[Sequence[str]], columns: Sequence[Column], width: int | None, rule: bool = True) -> str:
    """The rows under the columns' headers, :func:`aligned`, in lines of at most ``width``.

    Columns that may be left out go first, in their order, until the others fit with every name whole
    and every wrapping column at its narrowest; then the names lose their middles if they must, and
    what room is left goes to the wrapping columns.  A line under the table names what was left out.
    A table that fits (or ``width`` None) is exactly :func:`aligned`'s.
    """
    table = [[c.header for c in columns], *[list(r) for r in rows]]
    if width is None:
        return aligned(table, rule)
    natural = [max(len(row[i]) for row in table) for i in range(len(columns))]
    least = [_narrowest(c, [row[i] for row in table], natural[i]) for i, c in enumerate(columns)]
    kept = list(range(len(columns)))
    for i in sorted((i for i, c in enumerate(columns) if c.drop), key=lambda i: (columns[i].drop, i)):
        if sum(least[k] if columns[k].wrap else natural[k] for k in kept) + 2 * (len(kept) - 1) <= width:
            break
        kept.remove(i)
    widths = _widths([columns[k] for k in kept], [natural[k] for k in kept], [least[k] for k in kept], width)
    lines = []
    for row in table:
        cells = [_cell(columns[k], row[k], w) for k, w in zip(kept, widths)]
        lines += [[c[n] if n < len(c) else "" for c in cells] for n in range(max(len(c) for c in cells))]
    out = aligned(lines, rule)
    left = [columns[i].header for i in range(len(columns)) if i not in kept]
    if left:
        note = f"({', '.join(left)}: left out to fit {width} columns; --wide shows {'them' if len(left) > 1 else 'it'})"
        out += "".join(line + "\n" for line in hanging(note, width, 1))
    return out


def _narrowest(column: Column, cells: list[str], natural: int) -> int:
    if column.wrap:
        longest = max(len((item + column.wrap).strip()) for cell in cells for item in cell.split(column.wrap))
        return min(natural, max(len(column.header), _NARROWEST_WRAP, min(longest, _LONG_WORD)))
    if column.shrink:
        return min(natural, max(len(column.header), _NARROWEST_SHRINK))
    return natural


def _widths(columns: list[Column], natural: list[int], least: list[int], width: int) -> list[int]:
    """Each kept column's width: fixed ones whole; names as whole as the room allows; the rest to the wraps."""
    out = list(natural)
    room = width - 2 * (len(columns) - 1) - sum(n for c, n in zip(columns, natural) if not (c.shrink or c.wrap))
    wraps = [i for i, c in enumerate(columns) if c.wrap]
    names = [i for i, c in enumerate(columns) if c.shrink and not c.wrap]
    for i, w in zip(names, _share([natural[i] for i in names], [least[i] for i in names],
                                  room - sum(least[i] for i in wraps))):
        out[i] = w
    room -= sum(out[i] for i in names)
    # Below their narrowest only when the names at theirs leave no more: a word cut is better than a line
    # the terminal folds.
    for i, w in zip(wraps, _share([natural[i] for i in wraps], [len(columns[i].header) for i in wraps], room)):
        out[i] = w
    return out


def _share(wants: list[int], floors: list[int], room: int) -> list[int]:
    """``room`` shared out: those that want less than an equal share have what they want, the others the
    same share each (never below their floor)."""
    out = list(floors)
    left = len(wants)
    for i in sorted(range(len(wants)), key=lambda i: wants[i]):
        out[i] = max(floors[i], min(wants[i], room // left))
        room -= out[i]
        left -= 1
    return out


def _cell(column: Column, text: str, width: int) -> list[str]:
    if len(text) <= width:
        return [text]
    if column.wrap:
        return folded(text, width, column.wrap)
    return [middle(text, width)] if column.shrink else [text]
