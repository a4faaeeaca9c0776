"""Cases in the event dialects (OpenAI Responses, Anthropic Messages): one pipeline, a renderer each.

The calls are drawn as for chat completions (:mod:`calls`), the dialect's
module (its *renderer*) writes them as its own events, and framing,
disconnects and read cuts are the shared stages.  Every case's smallest draw
is the dialect's documented shape: one call, one fragment, a clean end, LF
framing, one read.

A renderer module has ``DIALECT``, ``PLAIN`` (its documented shape's
profile), ``ENDINGS``, ``UNFINISHED`` (the finish reason of a cut-short
message), ``call_id``, ``index_of``, ``render``, ``error_body``,
``junk_body`` and ``number``; one with a ``failed`` ending has ``failed_body``,
and one whose profiles apply only to some calls has ``effective``, which says
which of the drawn profiles the planned calls leave room for (a case's
features are the ones it exercises).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Collection, Sequence

from toolfuzz.strategies.chunks import ERROR_MESSAGES
from toolfuzz.strategies.dialects.calls import LARGE_ARGUMENTS, Mark, call_features, expected_outcome, plan_calls
from toolfuzz.strategies.endings import disconnects, finish_reasons
from toolfuzz.strategies.framing import Payload, framings
from toolfuzz.strategies.profiles import DIALECT_PROFILES
from toolfuzz.strategies.reads import read_cuts, read_features
from toolfuzz.strategies.stage import allows, integer, named, pick, stage
from toolfuzz.vocabulary import COMPLETING, Case, SSEEvent, StreamError, Tool

__all__ = ["typed_cases"]

_WHOLE = ("whole-arguments", "whole-input")
#: Marks of an event that finishes the message (the response): before it, no call is complete.
_FINISHING = ("finish", "end")


def _profiles(draw: Any, module: ModuleType, allowed: Collection[str]) -> frozenset[str]:
    plain = module.PLAIN
    deviations = [p for p in DIALECT_PROFILES[module.DIALECT] if p in allowed and p != plain]
    if not deviations or (plain in allowed and integer(draw, 0, 3) == 0):
        return frozenset()
    # One decision per profile (the simplest leaves it out), so that a plan's reduction can take any one out.
    chosen = frozenset(p for p in deviations if integer(draw, 0, 2) == 2)
    # Without the documented shape among the allowed ones, a case always has some deviation.
    return chosen if chosen or plain in allowed else frozenset({pick(draw, deviations)})


@stage
def typed_cases(draw: Any, generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str],
                module: ModuleType) -> Case:
    """Cases in the dialect ``module`` renders, for these tools' argument generators and profiles."""
    completing = COMPLETING[module.DIALECT]
    with named(draw, "profile_sets"):  # as chat's profiles are named (strategies.reduce.shifts)
        active = _profiles(draw, module, allowed)
    planned = plan_calls(draw, generators, module.call_id, whole=bool(active & set(_WHOLE)))
    if hasattr(module, "effective"):
        active = module.effective(planned, active)
    # Named as chat's choices and endings are, so that one reduction pass (strategies.reduce.swaps)
    # can trade any unfinished ending for the plainest one in every dialect.
    with named(draw, "choice"):
        finish = completing[0] if finish_reasons.draw(draw, completing[0]) == completing[0] else module.UNFINISHED
    items, interleaved = module.render(draw, planned, active, finish)
    with named(draw, "stream_endings"):
        ending = pick(draw, module.ENDINGS)
        if not allows(ending):
            ending = "done"
    if ending == "no-done":
        items = items[:-1]  # the message finished, then the connection closed before message_stop
    elif ending == "after-done":
        items.append((module.junk_body(), ()))
    elif ending in ("error-event", "failed"):
        # The error takes the place of the rest of the stream, its terminal event included: Anthropic's and
        # OpenAI's docs show it ending a stream, and none is known after message_stop or response.completed
        # (a library that raises on one there would be judged on a wire no server sends).
        at = integer(draw, 1, len(items) - 1)
        message = pick(draw, ERROR_MESSAGES)
        body = module.error_body(message) if ending == "error-event" else module.failed_body(message)
        items = items[:at] + [(body, (Mark("error", error=StreamError("server_error", message)),))]
    module.number([body for body, _ in items])
    framed = framings.draw(draw, [Payload(body, event=body["type"]) for body, _ in items])
    wire = framed.wire
    # The dialect's own name is always a feature, so that a finding's signature (and its
    # fixture's file name) never collides with the same finding in another dialect.
    features = {ending, module.PLAIN} | call_features(planned, LARGE_ARGUMENTS) | active
    if interleaved:
        features.add("interleaved")
    else:
        features -= {"interleaved-items", "interleaved-blocks"}  # drawn, but not exercised
    if finish not in completing:
        features.add("length")
    if ending == "disconnect" and len(wire) > 1:
        wire, mid = _disconnect(draw, wire, framed.events, items)
        if mid:
            features.add("disconnect-mid-arguments")
    dispatched, events = [], []
    for ev in framed.events:
        if ev.dispatch_at is None or ev.dispatch_at > len(wire):
            break
        dispatched.append(items[ev.payload][1])
        events.append(SSEEvent(ev.data.decode("utf-8"), items[ev.payload][0]["type"], ev.last_id))
    indexes = {c.number: module.index_of(c, active) for c in planned}
    used: list[Tool] = []
    for call in planned:
        if call.tool not in used:
            used.append(call.tool)
    expected = expected_outcome(dispatched, indexes, {c.number: c.name for c in planned},
                                {c.number: c.id for c in planned}, used, completing)
    reads = read_cuts.draw(draw, wire)
    features |= set(framed.features) | read_features(wire, reads)
    return Case(reads=reads, expected=expected, tools=tuple(used), dialect=module.DIALECT,
                features=tuple(sorted(features)), events=tuple(events))


def _disconnect(draw: Any, wire: bytes, framed_events: Sequence[Any], items: Sequence[Any]) -> tuple[bytes, bool]:
    """The wire cut short (:func:`~toolfuzz.strategies.endings.disconnects`), and whether inside arguments."""
    cut = disconnects.draw(draw, [
        (ev.start, ev.dispatch_at or ev.end, any(m.kind == "args" and m.text for m in items[ev.payload][1]),
         any(m.kind in _FINISHING for m in items[ev.payload][1])) for ev in framed_events], len(wire))
    mid = any(ev.start < cut < (ev.dispatch_at or ev.end + 1) and any(m.kind == "args" for m in items[ev.payload][1])
              for ev in framed_events)
    return wire[:cut], mid
