"""Cutting the wire into network reads: anywhere, and where decoders break.

A cut is drawn as a byte offset into the wire (or as the n-th place of a kind
where decoders break), so an edit of the plan that makes the wire shorter
(a call taken out, a value shortened) moves every later cut to other bytes.
:func:`moved_cuts` finds where each cut was on the edited wire (the same line,
the same place in it) and :func:`pinned` writes those offsets back as the
stage's decisions: the reduction's way of keeping the cuts a bug needs while
it takes out what it does not.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from typing import Any, Mapping, Sequence


from toolfuzz.strategies.stage import boolean, integer, named, pick, stage

__all__ = ["read_cuts", "hard_offsets", "read_features", "moved_cuts", "pinned", "BYTEWISE_LIMIT", "STAGE"]

#: The name of the stage this module draws in, as a plan's keys hold it.
STAGE = "read_cuts:0"
#: The mode that draws each cut as a plain offset, and the one that reads byte by byte (see read_cuts).
_OFFSETS_MODE, _BYTEWISE_MODE = 3, 9
_MAX_CUTS = 8
#: How many lines either side of where a changed line would fall are looked at for its counterpart.
_NEAR = 8
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")

#: Wires up to this many bytes may be read one byte at a time.
BYTEWISE_LIMIT = 4096
_CONTINUATION = re.compile(rb"[\x80-\xbf]")


def hard_offsets(wire: bytes) -> dict[str, list[int]]:
    """Offsets (0 < i < len) where a read boundary splits something."""
    places: dict[str, list[int]] = {"utf8": [], "crlf": [], "field": []}
    i = wire.find(b"\r\n")
    while i != -1:
        places["crlf"].append(i + 1)
        i = wire.find(b"\r\n", i + 2)
    i = wire.find(b"data:")
    while i != -1:
        places["field"].extend(range(i + 1, i + 5))
        i = wire.find(b"data:", i + 5)
    if not wire.isascii():
        # The first few thousand are as good a choice as all of them, at a fraction of the scan.
        places["utf8"] = [m.start() for m in itertools.islice(_CONTINUATION.finditer(wire, 1), 4096)]
    return {k: v for k, v in places.items() if v}


def read_features(wire: bytes, reads: tuple[bytes, ...]) -> set[str]:
    out = set()
    if len(reads) == 1:
        out.add("single-read")
    elif len(wire) > 1 and all(len(r) == 1 for r in reads):
        out.add("byte-reads")
    inside_field = set()
    i = wire.find(b"data:")
    while i != -1:
        inside_field.update(range(i + 1, i + 5))
        i = wire.find(b"data:", i + 5)
    at = 0
    for r in reads[:-1]:
        at += len(r)
        if 0x80 <= wire[at] < 0xC0:
            out.add("read-splits-utf8")
        if wire[at - 1:at + 1] == b"\r\n":
            out.add("read-splits-crlf")
        if at in inside_field:
            out.add("read-splits-field")
    return out


@stage
def read_cuts(draw: Any, wire: bytes) -> tuple[bytes, ...]:
    """Non-empty reads that join to ``wire``; shrinks toward one read of everything."""
    n = len(wire)
    mode = integer(draw, 0, 9)
    if n < 2 or mode < 3:
        return (wire,)
    cuts = set()
    places = hard_offsets(wire) if mode >= 6 else {}
    kinds = sorted(places)
    for _ in range(integer(draw, 1, _MAX_CUTS)):
        # Each cut named on its own, so that a plan's reduction takes one out without moving the others.
        with named(draw, "cut"):
            if kinds and boolean(draw):
                cuts.add(pick(draw, places[pick(draw, kinds)]))
            else:
                # 0 is no cut: the simplest draw, so that taking a decision out takes its cut out.
                cut = integer(draw, 0, n - 1)
                if cut:
                    cuts.add(cut)
    if mode == _BYTEWISE_MODE and n <= BYTEWISE_LIMIT:
        # One byte per read.  The cuts above were drawn all the same, so that
        # shrinking mode 9 to 8 keeps them: a finding that needs only a cut or
        # two inside a character shrinks from byte reads to those cuts.
        return tuple(wire[i:i + 1] for i in range(n))
    bounds = [0, *sorted(cuts), n]
    return tuple(wire[a:b] for a, b in zip(bounds, bounds[1:]))


def _lines(wire: bytes) -> list[tuple[int, bytes]]:
    return [(m.start(), m.group()) for m in _LINE.finditer(wire)]


def moved_cuts(old: bytes, cuts: Sequence[int], new: bytes) -> list[int]:
    """Where ``cuts`` (offsets into ``old``) fall in ``new``, an edit of ``old``: each on the line it cut,
    at the same place in that line.

    Lines are matched as difflib matches them; a line the edit changed (a value shortened, a choice
    taken out of the chunk, a call moved up) is paired with the most similar of the lines that took
    the place of those changed, the cut kept inside it.  A cut on a line the edit took out is gone.
    """
    before, after = _lines(old), _lines(new)
    starts = [start for start, _ in before]
    # The line each cut falls on, found once: the pairing below and the moving after both need it.
    on_line = [(cut, max(0, bisect.bisect_right(starts, cut) - 1)) for cut in cuts]
    cut_lines = {i for _, i in on_line}
    # The lines both share at the start and at the end first, in linear time; difflib only between (it
    # takes junk for what recurs, the blank line after every event, so that a long wire stays cheap).
    head = 0
    while head < min(len(before), len(after)) and before[head][1] == after[head][1]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail][1] == after[-1 - tail][1]:
        tail += 1
    at_line = {k: k for k in range(head)}
    at_line.update((len(before) - 1 - k, len(after) - 1 - k) for k in range(tail))
    matcher = difflib.SequenceMatcher(None, [line for _, line in before[head:len(before) - tail]],
                                      [line for _, line in after[head:len(after) - tail]])
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        if op == "equal":
            at_line.update((i1 + k, j1 + k) for k in range(i2 - i1))
        elif op == "replace":
            # Lines the edit changed (a call moved up has another index and id in them): each cut line
            # paired with the line most like it among those that took their place.
            for i in (i for i in cut_lines if i1 <= i < i2):
                # Among the few lines about where it would fall, so that a long changed run costs little.
                at = j1 + (i - i1) * (j2 - j1) // (i2 - i1)
                near = range(max(j1, at - _NEAR), min(j2, at + _NEAR + 1))
                # quick_ratio counts the bytes two lines share, in linear time: a data line may be megabytes.
                at_line[i] = max(near, key=lambda j: (
                    difflib.SequenceMatcher(None, before[i][1], after[j][1], autojunk=False).quick_ratio(), -j))
    out = set()
    for cut, i in on_line:
        j = at_line.get(i)
        if j is None:
            continue
        start, line = after[j]
        moved = start + min(cut - before[i][0], max(len(line) - 1, 0))
        if 0 < moved < len(new):
            out.add(moved)
    return sorted(out)


def pinned(plan: Mapping[Any, Any], cuts: Sequence[int]) -> dict[Any, Any] | None:
    """``plan`` with its read cuts drawn as exactly ``cuts`` (offsets into the wire it renders), or None
    where it cannot say so: the plan has no read cuts, reads byte by byte, or there are too many."""
    prefix = next((key[:key.index(STAGE) + 1] for key in plan if STAGE in key), None)
    if prefix is None or plan.get((*prefix, 0)) == _BYTEWISE_MODE or len(cuts) > _MAX_CUTS:
        return None
    depth = len(prefix)
    out = {k: v for k, v in plan.items() if k[:depth] != prefix}
    if not cuts:
        return out
    # The decisions read_cuts draws with no places of a kind: the mode, the count, then each cut's offset.
    out[(*prefix, 0)] = _OFFSETS_MODE
    if len(cuts) > 1:
        out[(*prefix, 1)] = len(cuts)
    for i, cut in enumerate(cuts):
        out[(*prefix, f"cut:{i}", 0)] = cut
    return out
