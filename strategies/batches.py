"""Cutting a model's text into the batches a serving engine hands its parser.

A server detokenises as it generates and passes the new text to the tool
parser once per stream step: one token a step by default, several with a
stream interval above one, a burst with speculative decoding, the whole text
when it does not stream.  Where the batches fall is the server's business,
never the user's, so a parser must read the same calls whatever they are.
Boundaries fall only between tokens (:func:`toolfuzz.vocabulary.text_tokens`),
never inside a special token: a cut there is a batch no server sends.

The stop token decodes to no text; when it comes in a step of its own, the
parser sees one empty batch last, the step that says the generation ended
(``stop-alone``).  Otherwise the last text batch is that step.
"""

from __future__ import annotations

from typing import Any, Sequence

from toolfuzz.strategies.stage import integer, named, stage

__all__ = ["token_batches", "batch_features"]

_MAX_CUTS = 8
_ONE_TOKEN_MODE = 9


@stage
def token_batches(draw: Any, tokens: Sequence[str]) -> tuple[str, ...]:
    """Batches that join to the tokens' text, each whole tokens; shrinks toward one batch of everything."""
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
    batches = ["".join(tokens[a:b]) for a, b in zip(bounds, bounds[1:])]
    if integer(draw, 0, 3) == 3:
        batches.append("")  # the stop token, in a step of its own
    return tuple(batches)


def batch_features(batches: Sequence[str], tokens: Sequence[str], starts: Sequence[int]) -> set[str]:
    """What the batching exercises; ``starts`` are where each call's text begins in the whole text."""
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
    return out
