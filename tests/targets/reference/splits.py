"""Ways to cut a wire into reads for the reference tests: every one-cut split, and a fixed set of two-cut ones.

Every two-cut split is quadratic in the wire (45,000 for a 300-byte stream), and most of them cut in two
plain places, which one cut already covers.  The two-cut splits kept are the ones a decoder can get wrong
only with two cuts, plus a sample of the rest:

* every pair of hard places (:func:`hard_places`): a character cut into three reads, CR and LF each
  alone in its read, two line ends cut at once, a BOM in three pieces;
* an empty read at every offset, and a one-byte read at every offset (state carried across a read that
  brings nothing, or only one byte: a CR's pending LF, a partial character);
* :data:`SAMPLED` of the other pairs, drawn with a fixed seed, so that every run checks the same ones.
"""

from __future__ import annotations

import itertools
import random
from typing import Iterator

from toolfuzz.vocabulary import Limits, Outcome, Tool
from toolfuzz.targets.reference import assemble

#: Two-cut splits drawn from those no rule above keeps.
SAMPLED = 300


def hard_places(wire: bytes) -> list[int]:
    """Both ends; every offset inside a multi-byte UTF-8 character; both sides of every CR and LF byte."""
    places = {0, len(wire)}
    for i, byte in enumerate(wire):
        if 0x80 <= byte < 0xC0:  # a continuation byte: a cut before it splits a character
            places.add(i)
        if byte in b"\r\n":
            places.update((i, i + 1))
    return sorted(places)


def two_cut_pairs(wire: bytes) -> list[tuple[int, int]]:
    """The (i, j) cut pairs kept, i <= j, in order (see the module's docstring)."""
    n = len(wire)
    kept = set(itertools.combinations_with_replacement(hard_places(wire), 2))
    kept.update((i, i) for i in range(n + 1))
    kept.update((i, i + 1) for i in range(n))
    rest = [p for p in itertools.combinations_with_replacement(range(n + 1), 2) if p not in kept]
    kept.update(random.Random(0).sample(rest, min(SAMPLED, len(rest))))
    return sorted(kept)


def every_split(wire: bytes) -> Iterator[list[bytes]]:
    """The whole wire, one read per byte, every one-cut split, and the two-cut splits kept."""
    yield [wire]
    yield [wire[i:i + 1] for i in range(len(wire))]
    for i in range(len(wire) + 1):
        yield [wire[:i], wire[i:]]
    for i, j in two_cut_pairs(wire):
        yield [wire[:i], wire[i:j], wire[j:]]


def assert_every_split(wire: bytes, expected: Outcome, tools: tuple[Tool, ...] = (),
                       limits: Limits = Limits()) -> None:
    """The outcome is ``expected`` however the wire is cut into reads (of the splits above)."""
    for reads in every_split(wire):
        got = assemble(reads, tools, limits)
        if got != expected:
            cuts = [sum(map(len, reads[:k])) for k in range(1, len(reads))]
            raise AssertionError(f"cuts at {cuts[:10]} gave\n{got}\nexpected\n{expected}")
