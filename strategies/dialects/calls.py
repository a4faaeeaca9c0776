"""The calls a stream carries, drawn once for every event dialect, and the outcome read off what was dispatched.

A dialect module renders planned calls as its own events; each event it
writes carries :class:`Mark` records that say what it means for assembly
(a call opened, argument text, a call's own stop, the message's finish,
the end of the stream, an error).  The expected outcome is computed from the
marks of the events that are dispatched before the wire ends, by the same
rules the contract states for every dialect: a call is complete only when
its own stop *and* a completing finish have both been dispatched, before any
error or end.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

from toolfuzz.vocabulary import INCOMPLETE, Call, Outcome, StreamError, Tool
from toolfuzz.strategies.endings import break_schema, call_defects, corrupt_text, unknown_name
from toolfuzz.strategies.expect import verdict
from toolfuzz.strategies.fragments import cut_offsets, fragments, join_fragments
from toolfuzz.strategies.plan import PlannedCall
from toolfuzz.strategies.serialise import serialisations
from toolfuzz.strategies.stage import integer, named, pick

__all__ = ["LARGE_ARGUMENTS", "opens_in_order", "Mark", "plan_calls", "expected_outcome", "call_features", "fragment_features", "digest"]


#: Arguments longer than this (UTF-8 bytes) make a case ``large-arguments``.
LARGE_ARGUMENTS = 10 * 1024


@dataclass(frozen=True)
class Mark:
    """What one event means for assembly.  ``call`` is a planned call's number."""

    kind: str  # "open", "args", "stop", "finish", "end", "error"
    call: int | None = None
    text: str = ""
    reason: str | None = None
    error: StreamError | None = None


def digest(seed: str, n: int) -> str:
    """Deterministic hex for ids: the same call gets the same id in every dialect."""
    return hashlib.sha1(f"toolfuzz-{seed}-{n}".encode()).hexdigest()


def plan_calls(draw: Any, generators: Sequence[tuple[Tool, Any]], make_id: Any, whole: bool) -> list[PlannedCall]:
    """One to three calls of choice 0, drawn as the chat strategy draws each call's content."""
    tools = tuple(t for t, _ in generators)
    n_calls = integer(draw, 0, 7)
    n_calls = 1 if n_calls < 4 else 2 if n_calls < 7 else 3
    planned = []
    for k in range(n_calls):
        with named(draw, "call"):
            tool, arguments = pick(draw, generators)
            defect = call_defects.draw(draw)
            value = draw(arguments)
            if defect == "schema-invalid":
                value = break_schema(value, dict(tool.parameters), integer(draw, 0, 3))
            text = serialisations.draw(draw, value)
            if defect == "invalid-json":
                text = corrupt_text.draw(draw, text)
            name = unknown_name(tool.name, tools) if defect == "unknown-tool" else tool.name
            pieces = [text] if whole else fragments.draw(draw, text)
            planned.append(PlannedCall(k, 0, k, tool, name, make_id(k + 1), value, text, pieces, defect))
    return planned


def opens_in_order(order: Sequence[int]) -> list[int]:
    """``order`` (which call each step advances) with the calls opening in index order.

    Both wires open items and blocks in the order of their index; only what
    follows an opening may interleave.  A step of a call that has not opened
    yet waits until the calls before it have.
    """
    out: list[int] = []
    waiting: list[int] = []
    next_open = 0
    for call in order:
        waiting.append(call)
        moved = True
        while moved:
            moved = False
            for i, w in enumerate(waiting):
                if w <= next_open:
                    out.append(waiting.pop(i))
                    next_open += w == next_open
                    moved = True
                    break
    return out + waiting


def expected_outcome(dispatched: Sequence[Sequence[Mark]], indexes: dict[int, int], names: dict[int, str],
                     ids: dict[int, str], tools: Sequence[Tool], completing: Sequence[str]) -> Outcome:
    """The outcome of the events whose marks are ``dispatched``, in order."""
    parts: dict[int, list[str]] = {}
    stopped: set[int] = set()
    finished: str | None = None
    error = None
    for marks in dispatched:
        over = False
        for m in marks:
            if m.kind == "open":
                parts.setdefault(m.call, [])
            elif m.kind == "args":
                parts[m.call].append(m.text)
            elif m.kind == "stop":
                stopped.add(m.call)
            elif m.kind == "finish" and finished is None:
                finished = m.reason
            elif m.kind == "end":
                over = True
            elif m.kind == "error":
                error, over = m.error, True
        if over:
            break
    calls = []
    for number, pieces in parts.items():
        arguments = join_fragments(pieces)
        if number in stopped and finished in completing:
            status = verdict(names[number], arguments, tools)
        else:
            status = INCOMPLETE
        calls.append(Call(0, indexes[number], ids[number], names[number], arguments, status, cut_offsets(pieces)))
    return Outcome(tuple(calls), error)


def call_features(planned: Sequence[PlannedCall], large: int) -> set[str]:
    """The features of one choice's planned calls: how many, their defects, their fragments."""
    out = fragment_features(planned, large) | {c.defect for c in planned if c.defect}
    if len(planned) > 1:
        out.add("multi-call")
    return out


def fragment_features(planned: Sequence[PlannedCall], large: int) -> set[str]:
    """How the planned calls' argument texts were cut, and whether any is larger than ``large`` UTF-8 bytes."""
    out = set()
    for call in planned:
        if any(f.endswith("\\") for f in call.fragments[:-1]):
            out.add("fragment-after-backslash")
        if len(call.fragments) > 1 and all(len(f) == 1 for f in call.fragments):
            out.add("one-char-fragments")
        if len(call.fragments) > 1 and "" in call.fragments:
            out.add("empty-fragment")
        if len(call.text.encode("utf-8", "surrogatepass")) > large:
            out.add("large-arguments")
        if call.text != call.text.strip():
            out.add("padded-json")
    return out
