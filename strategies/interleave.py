"""Merging several ordered sequences into one stream, each keeping its own order."""

from __future__ import annotations

from typing import Any, Sequence


from toolfuzz.strategies.stage import boolean, integer, stage

__all__ = ["interleavings", "merge"]


@stage
def interleavings(draw: Any, lengths: Sequence[int], allow: bool = True) -> list[int]:
    """A label sequence with ``lengths[k]`` copies of k, each label's copies in order.

    Shrinks toward the sequential order 0..0 1..1 2..2: each step picks among
    the labels not yet used up, and picking the first one is the smallest draw.
    """
    remaining = list(lengths)
    live = [k for k, n in enumerate(remaining) if n]
    order: list[int] = []
    if not allow or len(live) < 2 or not boolean(draw):
        for k, n in enumerate(lengths):
            order.extend([k] * n)
        return order
    while live:
        pick = live[integer(draw, 0, len(live) - 1)] if len(live) > 1 else live[0]
        order.append(pick)
        remaining[pick] -= 1
        if not remaining[pick]:
            live.remove(pick)
    return order


def merge(sequences: Sequence[Sequence[Any]], order: Sequence[int]) -> list[Any]:
    """The items of ``sequences`` in the interleaving ``order``."""
    cursors = [0] * len(sequences)
    out = []
    for k in order:
        out.append(sequences[k][cursors[k]])
        cursors[k] += 1
    return out
