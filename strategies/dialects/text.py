"""Cases of the producer level: a model's text in one format, cut into the batches a server parses.

A case writes one to three calls (tools, arguments and serialisation drawn
as every dialect draws them) in one :mod:`~toolfuzz.strategies.markup` format,
with ordinary content before the calls, between them where the format
allows text there, and after them; then cuts the text into token batches
(:mod:`~toolfuzz.strategies.batches`).  The batches are the case's reads
(UTF-8); the calls and the content written are its expected outcome, known
by construction.  The plainest case is one call, no content, one batch.
"""

from __future__ import annotations

import json
from typing import Any, Collection

from hypothesis import strategies as st

from toolfuzz.vocabulary import Call, Case, Outcome, Tool, text_tokens
from toolfuzz.strategies.batches import batch_features, pieces_at, token_batches
from toolfuzz.strategies.expect import verdict
from toolfuzz.strategies.markup import FORMATS, Format, Written
from toolfuzz.strategies.serialise import serialisations
from toolfuzz.strategies.stage import integer, named, pick, stage

__all__ = ["TextDialect", "DIALECTS", "usable_for", "LOOKALIKES"]

#: What a model writes around its calls, the plainest first.  Some hold what a parser may take for the start
#: of a call (a brace, a bracket, an angle bracket): a model writes them in prose all the same.
_TEXTS = ("Let me check that.", "I'll look that up for you.\n", "Un instant — je vérifie 😀",
          "Two {braces} and [brackets].", "If a < b then b > a.")


#: Draws of a call's arguments, of which the shortest is written.
_TRIES = 3

#: Strings that spell another JSON value.  A format that writes a string as itself (an XML parameter) leaves
#: its parser to tell them from that value by the schema's type alone; now and then a call's top-level strings
#: are these.
LOOKALIKES = ("null", "true", "false", "0", "-1", "1.5", "1e3", "[]", "{}", "None", "NULL")


def _lookalikes(draw: Any, value: Any) -> Any:
    if not isinstance(value, dict) or integer(draw, 0, 3) < 3:
        return value
    return {k: pick(draw, LOOKALIKES) if isinstance(v, str) else v for k, v in value.items()}


def _spelled(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(v, str) and v in LOOKALIKES for v in value.values())


def _length(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def usable_for(fmt: Format, generators: tuple[tuple[Tool, Any], ...]) -> tuple[tuple[Tool, Any], ...]:
    """The tools whose names the format can write."""
    return tuple((t, g) for t, g in generators if fmt.names.fullmatch(t.name))


class TextDialect:
    """One format's cases, behind the interface every dialect module has (:mod:`toolfuzz.strategies.dialects`)."""

    def __init__(self, fmt: Format) -> None:
        self.format = fmt
        self.DIALECT = f"text:{fmt.name}"

    def cases(self, generators: tuple[tuple[Tool, Any], ...], allowed: Collection[str]) -> st.SearchStrategy[Case]:
        return _cases(self.format, self.DIALECT, generators)

    def draw_case(self, draw: Any, generators: tuple[tuple[Tool, Any], ...], allowed: Collection[str]) -> Case:
        return _cases.draw(draw, self.format, self.DIALECT, generators)


def _content(draw: Any) -> str:
    return pick(draw, _TEXTS) if integer(draw, 0, 2) == 2 else ""


@stage
def _cases(draw: Any, fmt: Format, dialect: str, generators: tuple[tuple[Tool, Any], ...]) -> Case:
    tools = tuple(t for t, _ in generators)
    usable = usable_for(fmt, generators)
    n_calls = integer(draw, 0, 7)
    n_calls = 1 if n_calls < 4 else 2 if n_calls < 7 else 3
    written: list[Written] = []
    for _ in range(n_calls):
        with named(draw, "call"):
            tool, arguments = pick(draw, usable)
            # A tool call a model writes is short; a long one makes every case of the quadratic parsers a
            # time-out (one root cause a target, learnt once), so the shortest of a few draws is kept.
            value = min((fmt.fit(draw(arguments), tool.parameters) for _ in range(_TRIES)), key=_length)
            value = _lookalikes(draw, value)
            written.append(Written(tool.name, value, serialisations.draw(draw, value)))
    before = _content(draw)
    between = [_content(draw) for _ in written[1:]] if fmt.between else []
    after = _content(draw) if fmt.trailing else ""
    text = fmt.render(written, before, between, after)
    pieces = text_tokens(text, fmt.atoms)
    # Where each call begins, for the batches and the features: its name, in order, after the content before it.
    # Where its arguments end, where the format writes them as their JSON text; else where the next begins.
    starts, ends, at = [], [], len(before)
    for call in written:
        at = text.find(call.name, at)
        starts.append(at)
        at += len(call.name)
        if fmt.json_text and (found := text.find(call.text, at)) >= 0:
            at = found + len(call.text)
            ends.append(at)
    if len(ends) != len(starts):
        ends = []
    batches = token_batches.draw(draw, pieces, pieces_at(pieces, starts))
    calls = []
    for k, call in enumerate(written):
        # What the model wrote as JSON; a pythonic or XML call wrote its own spelling, whose value is this JSON's.
        arguments = call.text if fmt.json_text else json.dumps(call.value, ensure_ascii=False)
        calls.append(Call(0, k, None, call.name, arguments, verdict(call.name, arguments, tools)))
    content = fmt.joiner.join(part for part in (before, *between, after) if part)
    features = batch_features(batches, pieces, starts, ends)
    features |= {name for name, there in (("content-before", before), ("content-between", any(between)),
                                          ("content-after", after)) if there}
    if len(written) > 1:
        features.add("multi-call")
    if any(_spelled(call.value) for call in written):
        features.add("lookalike-strings")
    return Case(reads=tuple(b.encode("utf-8", "surrogatepass") for b in batches),
                expected=Outcome(tuple(calls), None, content), tools=tools, dialect=dialect,
                # Not a wire: no event is dispatched, and no events-level target is fed anything.
                features=tuple(sorted(features)), events=())


#: Every format's dialect module, by dialect name.
DIALECTS = {d.DIALECT: d for d in (TextDialect(f) for f in FORMATS.values())}
