"""How a stream ends, and how a call's arguments can be wrong when it does.

Stream endings: ``done`` (finish, then ``[DONE]``), ``no-done`` (finish,
then EOF), ``after-done`` (junk after ``[DONE]``, which must be ignored),
``disconnect`` (the wire cut short, see :func:`disconnects`), ``error-chunk`` (``data:
{"error": ...}`` mid-stream) and ``error-event`` (an SSE ``event: error``).
Per choice, ``length`` and ``content-filter`` finishes leave calls
incomplete.  Per call, ``invalid-json``, ``schema-invalid`` and
``unknown-tool`` make a finished call fail its verdict.
"""

from __future__ import annotations

from typing import Any, Sequence

from toolfuzz.strategies.stage import allows, integer, pick, stage

from toolfuzz.vocabulary import Tool
from toolfuzz.strategies.arguments import validator
from toolfuzz.strategies.expect import parses

__all__ = ["stream_endings", "finish_reasons", "disconnects", "call_defects", "corrupt_text", "break_schema",
           "unknown_name", "ENDINGS", "DEFECTS", "ENDING_STAGES", "LENGTH_DECISION", "DISCONNECT_DECISION"]

#: In shrink order.
ENDINGS = ("done", "no-done", "after-done", "disconnect", "error-chunk", "error-event")
DEFECTS = ("invalid-json", "schema-invalid", "unknown-tool")


_ENDING_WEIGHTS = ("done",) * 4 + ("no-done", "after-done", "disconnect", "disconnect", "error-chunk", "error-event")


@stage
def stream_endings(draw: Any) -> str:
    """Weighted toward a clean end, as real streams are; shrinks to ``done``."""
    ending = _ENDING_WEIGHTS[integer(draw, 0, len(_ENDING_WEIGHTS) - 1)]
    return ending if allows(ending) else "done"


#: The stages that decide how a stream ends; every dialect names its own so (strategies.reduce swaps them).
ENDING_STAGES = ("stream_endings", "finish_reasons", "disconnects")
#: The decision of :func:`finish_reasons` that finishes a choice for ``length``: the plainest unfinished ending.
LENGTH_DECISION = 8
#: The decision of every dialect's ``stream_endings`` that ends its stream in a disconnect (its place in
#: each dialect's endings): with no decision of :func:`disconnects`, the plainest stream that never finishes.
DISCONNECT_DECISION = 6


@stage
def disconnects(draw: Any, events: Sequence[tuple[int, int, bool, bool]], size: int) -> int:
    """Where a disconnect cuts a wire of ``size`` bytes, whose events are (start, where it is dispatched,
    whether it carries arguments, whether it finishes a choice or the message).

    The plainest cut is at the start of the first event that finishes a choice or the message: the calls
    streamed up to their finish, none finished, no event cut.  A server that goes away there shows an
    assembler that takes a call for complete without being told so, whichever way the stream was cut
    short when it was met, so reduction reports that mistake under this one ending.  Else the cut falls
    inside an event that carries arguments, or at any byte.
    """
    way = integer(draw, 0, 3)
    if way == 0:
        first = next((start for start, _, _, finishes in events if finishes), size - 1)
        return min(max(1, first), size - 1)
    carrying = [(start, end) for start, end, arguments, _ in events if arguments and end - start > 1]
    if carrying and way < 3:
        start, end = pick(draw, carrying)
        return integer(draw, start + 1, end - 1)
    return integer(draw, 1, size - 1)


@stage
def finish_reasons(draw: Any, completing: str) -> str:
    m = integer(draw, 0, 9)
    if m < LENGTH_DECISION:
        return completing
    # A content filter cuts a call short as the token limit does, on the servers that have one.
    return "content_filter" if m > LENGTH_DECISION and allows("content-filter-finish") else "length"


@stage
def call_defects(draw: Any) -> str | None:
    m = integer(draw, 0, 11)
    return None if m < 9 else DEFECTS[m - 9]


@stage
def corrupt_text(draw: Any, text: str) -> str:
    """``text`` made not one JSON text, the ways servers do it (truncated, doubled, extra brace)."""
    way = integer(draw, 0, 3)
    core = text.strip(" \t\n\r")
    if way == 0 and len(core) > 1:
        bad = core[: integer(draw, 1, len(core) - 1)]
    elif way == 1:
        bad = core + core  # cumulative-mode servers resend everything so far
    elif way == 2:
        bad = core.replace('"', "'", 2)
    else:
        bad = core + "}"
    # Checked rather than trusted: a prefix of some texts is still JSON.
    return bad if not parses(bad) else core + "}"


def _wrong_type(schema: Any) -> Any:
    t = schema.get("type") if isinstance(schema, dict) else None
    return "not-a-number" if t in ("integer", "number", "boolean", "null", "array", "object") else [1]


def break_schema(value: Any, schema: dict[str, Any], draw_choice: int) -> Any:
    """A JSON value the schema rejects, close to ``value`` where possible."""
    check = validator(schema)
    candidates = []
    if isinstance(value, dict):
        required = [k for k in schema.get("required", []) if k in value]
        if required:
            candidates.append({k: v for k, v in value.items() if k != required[0]})
        if schema.get("additionalProperties") is False:
            candidates.append({**value, "unexpected_field": True})
        props = schema.get("properties", {})
        for k in value:
            if k in props:
                candidates.append({**value, k: _wrong_type(props[k])})
    candidates.append([value])  # the arguments must be an object
    candidates = candidates[draw_choice % len(candidates):] + candidates[:draw_choice % len(candidates)]
    for c in candidates:
        if not check.is_valid(c):
            return c
    return [value]


def unknown_name(name: str, tools: Sequence[Tool]) -> str:
    names = {t.name for t in tools}
    out = name + "_v2"
    while out in names:
        out += "_x"
    return out
