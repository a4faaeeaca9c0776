"""Cutting a model's text into the batches a serving engine hands its parser.

A server detokenises as it generates and passes the new text to the tool
parser once per stream step: one token a step by default, several with a
stream interval above one, a burst with speculative decoding, the whole text
when it does not stream.  Where the batches fall is the server's business,
never the user's, so a parser must read the same calls whatever they are.
Boundaries fall only between tokens (:func:`toolfuzz.vocabulary.text_tokens`),
never inside a special token: a cut there is a batch no server sends.

A stream interval or a speculative step may also hold the whole of a later
call after the ones before it came token by token (``streamed-then-whole``),
a step a parser that tracks one open call reads wrong: vLLM 0.34's DeepSeek
V3.1 parser drops what was left of the first call's arguments when the step
also starts the next, and sglang's streams the whole call's arguments as
``{}``.  Cuts at random rarely fall so, so it is drawn on purpose.

The stop token decodes to no text; when it comes in a step of its own, the
parser sees one empty batch last, the step that says the generation ended
(``stop-alone``).  Otherwise the last text batch is that step.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Any, Sequence

from toolfuzz.strategies.stage import integer, named, stage

__all__ = ["token_batches", "batch_features", "pieces_at"]

_MAX_CUTS = 8
_ONE_TOKEN_MODE = 9


@stage
def token_batches(draw: Any, tokens: Sequence[str], calls: Sequence[int] = ()) -> tuple[str, ...]:
    """Batches that join to the tokens' text, each whole tokens; shrinks toward one batch of everything.

    ``calls``: the token each call's name begins at, in order; streamed a step or an interval at a time, a
    later call may come whole in one step."""
    n = len(tokens)
    mode = integer(draw, 0, 9)
    if n < 2 or mode < 3:
        bounds = [0, n]
    elif mode < 6:
        cuts = set()
        for _ in range(integer(draw, 1, _MAX_CUTS)):
            # Each cut named on its own, so that a plan's reduction takes one out without moving the others;
            # 0 is no cut, the simplest draw.
            with named(draw, "cut"):
                cut = integer(draw, 0, n - 1)
                if cut:
                    cuts.add(cut)
        bounds = [0, *sorted(cuts), n]
    elif mode < _ONE_TOKEN_MODE:
        # A stream interval: every k tokens a step.
        k = integer(draw, 2, 8)
        bounds = [*range(0, n, k), n]
    else:
        bounds = list(range(n + 1))
    if mode >= 6 and len(calls) > 1 and integer(draw, 0, 2) == 2:
        bounds = _one_call_whole(draw, bounds, calls, n)
    batches = ["".join(tokens[a:b]) for a, b in zip(bounds, bounds[1:])]
    if integer(draw, 0, 3) == 3:
        batches.append("")  # the stop token, in a step of its own
    return tuple(batches)


def _one_call_whole(draw: Any, bounds: list[int], calls: Sequence[int], n: int) -> list[int]:
    """``bounds`` with one later call's tokens in one batch: from its name, or some tokens before it (its
    opening markup, the end of the call before), up to the next call's name or the end."""
    k = integer(draw, 1, len(calls) - 1)
    start = calls[k] - integer(draw, 0, max(0, calls[k] - calls[k - 1] - 1))
    end = calls[k + 1] if k + 1 < len(calls) else n
    return sorted({b for b in bounds if not start < b < end} | {start, end})


def batch_features(batches: Sequence[str], tokens: Sequence[str], starts: Sequence[int],
                   ends: Sequence[int] = ()) -> set[str]:
    """What the batching exercises; ``starts`` are where each call's text begins in the whole text (its name),
    ``ends`` where its arguments end (by default, where the next call's name begins, or the text ends)."""
    text = [b for b in batches if b]
    if len(text) <= 1:
        out = {"single-batch"}
    elif len(text) == len(tokens):
        out = {"one-token-batches"}
    else:
        out = {"batched"}
    if len(batches) > 1 and batches[-1] == "":
        out.add("stop-alone")
    # Two calls begun in one batch: what a stream interval above one, or speculative decoding, hands a parser.
    begun = 0
    for batch in text:
        end = begun + len(batch)
        if sum(1 for s in starts if begun <= s < end) > 1:
            out.add("calls-in-one-batch")
        begun = end
    spans = list(zip(starts, ends or [*starts[1:], sum(len(t) for t in tokens)]))
    if _streamed_then_whole(text, spans):
        out.add("streamed-then-whole")
    return out


def pieces_at(pieces: Sequence[str], offsets: Sequence[int]) -> list[int]:
    """The piece (token, batch) of ``pieces`` each offset of their joined text falls in."""
    ends = list(accumulate(len(p) for p in pieces))
    return [bisect_right(ends, offset) for offset in offsets]


def _streamed_then_whole(text: Sequence[str], spans: Sequence[tuple[int, int]]) -> bool:
    """Whether some call's text is all in one batch and the call before it came in more than one."""

    def whole(span: tuple[int, int]) -> bool:
        first, last = pieces_at(text, (span[0], span[1] - 1))
        return first == last

    return any(whole(spans[k]) and not whole(spans[k - 1]) for k in range(1, len(spans)))
