"""Cutting an arguments text into the fragments a server streams.

Cuts are drawn as offsets, mostly at the places assemblers get wrong: inside
a string, right after a backslash, inside a ``\\uXXXX`` escape, next to white
space, around braces and brackets, and (for servers that slice JavaScript
strings) between the two UTF-16 halves of a character.  Fewer cuts shrink
toward one fragment holding the whole text.
"""

from __future__ import annotations

import re
from typing import Any


from toolfuzz.strategies.stage import integer, named, pick, stage

__all__ = ["hard_places", "fragments", "to_utf16_units", "join_fragments", "cut_offsets", "one_char_limit"]

_SURROGATE = re.compile("[\ud800-\udfff]")

#: Texts up to this length may be sent one character per fragment.
one_char_limit = 400


def to_utf16_units(text: str) -> str:
    """``text`` with each astral character written as its two surrogate halves."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    out = []
    for ch in text:
        o = ord(ch)
        if o > 0xFFFF:
            o -= 0x10000
            out.append(chr(0xD800 + (o >> 10)))
            out.append(chr(0xDC00 + (o & 0x3FF)))
        else:
            out.append(ch)
    return "".join(out)


def join_fragments(parts: list[str]) -> str:
    """Concatenate, then pair surrogate halves into characters (as UTF-16 would)."""
    text = "".join(parts)
    if not text.isascii() and _SURROGATE.search(text):
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def cut_offsets(parts: list[str]) -> tuple[int, ...]:
    """Where ``parts`` cut the text :func:`join_fragments` makes of them, in its code points.

    Offsets strictly inside the text, ascending, each once; a cut between the two UTF-16 halves of one
    character falls inside a code point and is left out.
    """
    offsets: list[int] = []
    at = 0
    pending_high = False
    for part in parts[:-1]:
        if part.isascii():
            at += len(part)
            pending_high = False
        else:
            for ch in part:
                if "\udc00" <= ch <= "\udfff" and pending_high:
                    pending_high = False  # the second half of a character already counted
                    continue
                pending_high = "\ud800" <= ch <= "\udbff"
                at += 1
        if not pending_high and (not offsets or offsets[-1] != at) and at > 0:
            offsets.append(at)
    total = len(join_fragments(parts))
    return tuple(o for o in offsets if o < total)


def hard_places(text: str) -> dict[str, list[int]]:
    """Offsets (0 < i < len) by kind, where a cut is most likely to break an assembler."""
    places: dict[str, list[int]] = {k: [] for k in (
        "after-backslash", "in-unicode-escape", "in-string", "whitespace", "brace", "surrogate")}
    in_string = escape = False
    n = len(text)
    # A long text is scanned at both ends only: the hard places there are the
    # same kinds as in the middle, and scanning 40 KB a draw would dominate.
    window = range(n) if n <= 4096 else [*range(2048), *range(n - 2048, n)]
    for i in window:
        if i == n - 2048 and n > 4096:
            in_string = escape = False  # the tail is scanned without its context
        c = text[i]
        if in_string:
            if escape:
                escape = False
                if c == "u":
                    places["in-unicode-escape"].extend(j for j in range(i, i + 5) if 0 < j < n)
            elif c == "\\":
                escape = True
                places["after-backslash"].append(i + 1)
            elif c == '"':
                in_string = False
            else:
                places["in-string"].append(i)
        elif c == '"':
            in_string = True
        elif c in " \t\r\n":
            places["whitespace"].extend((i, i + 1))
        elif c in "{}[]":
            places["brace"].extend((i, i + 1))
        if "\ud800" <= c <= "\udbff":
            places["surrogate"].append(i + 1)
    return {k: [j for j in v if 0 < j < n] for k, v in places.items() if any(0 < j < n for j in v)}


@stage
def fragments(draw: Any, text: str, max_cuts: int = 8, must: str | None = None) -> list[str]:
    """Pieces that concatenate to ``text``; empty pieces included.  Shrinks to ``[text]``.

    ``must`` names a kind of hard place (see :func:`hard_places`) to cut at
    least once when the text has one, e.g. ``"surrogate"``.
    """
    n = len(text)
    # The count is drawn first so that the whole text (count 0, then the
    # ordinary mode) is also the shortest choice sequence: shrinking ends there.
    count = integer(draw, 0, max_cuts)
    if integer(draw, 0, 11) == 11 and 1 < n <= one_char_limit:
        return list(text)
    places = hard_places(text) if count or must else {}
    kinds = sorted(places)
    cuts = []
    for _ in range(count):
        with named(draw, "cut"):  # one cut taken out of a plan moves no other
            kind = integer(draw, 0, len(kinds))
            if kind == 0 or n == 0:
                # 0 is no cut: the simplest draw, so that taking a decision out of a plan takes its cut out
                # (an empty piece still comes of two cuts at one place, or of one at the end).
                cut = integer(draw, 0, n)
                if cut:
                    cuts.append(cut)
            else:
                cuts.append(pick(draw, places[kinds[kind - 1]]))
    if must in places and not any(c in places[must] for c in cuts):
        cuts.append(pick(draw, places[must]))
    cuts.sort()
    bounds = [0, *cuts, n]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]

