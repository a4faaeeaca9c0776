"""Cutting the wire into network reads: anywhere, and where decoders break."""

from __future__ import annotations

import itertools
import re
from typing import Any


from toolfuzz.strategies.stage import boolean, integer, named, pick, stage

__all__ = ["read_cuts", "hard_offsets", "read_features", "BYTEWISE_LIMIT"]

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
    for _ in range(integer(draw, 1, 8)):
        # Each cut named on its own, so that a plan's reduction takes one out without moving the others.
        with named(draw, "cut"):
            if kinds and boolean(draw):
                cuts.add(pick(draw, places[pick(draw, kinds)]))
            else:
                # 0 is no cut: the simplest draw, so that taking a decision out takes its cut out.
                cut = integer(draw, 0, n - 1)
                if cut:
                    cuts.add(cut)
    if mode == 9 and n <= BYTEWISE_LIMIT:
        # One byte per read.  The cuts above were drawn all the same, so that
        # shrinking mode 9 to 8 keeps them: a finding that needs only a cut or
        # two inside a character shrinks from byte reads to those cuts.
        return tuple(wire[i:i + 1] for i in range(n))
    bounds = [0, *sorted(cuts), n]
    return tuple(wire[a:b] for a, b in zip(bounds, bounds[1:]))
