"""Comparing the events an SSE decoder dispatched with the events known by construction.

The sse level judges the transport alone: which events a decoder hands on,
with which data, type and id.  Events are paired by their data, in order (a
longest common subsequence), so that one event lost at the start does not
make every later event look different.  Between two paired events, what is
left over on both sides is paired in order as events whose data differs;
what is left over on one side only is lost or made up.

Kinds are checked in the order of :data:`SSE_KINDS` and reported once per
case.  As for calls, association comes first: when events are lost or made
up, the differences of the events that still pair up are consequences and
are not reported as further kinds.  The kinds a target shares with the call
level (blocked, timed out, raised, bad return) are decided in
:func:`toolfuzz.judge.compare.compare` before it hands sse targets here.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from toolfuzz.kinds import Where, meanings
from toolfuzz.vocabulary import Case, SSEEvent
from toolfuzz.targets.reference.sse import SSEDecoder

__all__ = ["SSE_KINDS", "compare_events", "expected_events"]

#: The sse-level divergence kinds, in the order they are checked, with what each means.
SSE_KINDS = meanings(Where.SSE)


def expected_events(case: Case) -> tuple[SSEEvent, ...]:
    """The events the case's wire dispatches: as recorded by construction, or else as the reference decodes them.

    Every generated case and every fixture under findings/ records its events;
    only a fixture written by hand without them falls back to the reference
    decoder, which is held to the events known by construction over every
    framing and read cut the strategies make (tests/judge/test_compare_events.py).
    """
    if case.events is not None:
        return case.events
    decoder = SSEDecoder()
    found = [e for read in case.reads for e in decoder.feed(read)]
    return tuple(SSEEvent(e.text, e.event, e.id) for e in found)


def compare_events(expected: tuple[SSEEvent, ...], observed: tuple[SSEEvent, ...],
                   ids: bool = True) -> list[tuple[str, str]]:
    """``(kind, detail)`` for each kind of difference, once per kind, in kind order.

    ``ids`` is false for a target that does not claim to report event ids.
    """
    found: dict[str, str] = {}
    pairs: list[tuple[int, SSEEvent, SSEEvent]] = []
    matcher = SequenceMatcher(None, [e.data for e in expected], [o.data for o in observed], autojunk=False)
    for op, e0, e1, o0, o1 in matcher.get_opcodes():
        n = min(e1 - e0, o1 - o0)
        pairs.extend((e0 + k, expected[e0 + k], observed[o0 + k]) for k in range(n))
        for k in range(e0 + n, e1):
            found.setdefault("event_lost", f"event {k} ({_about(expected[k])}) is missing")
        for k in range(o0 + n, o1):
            found.setdefault("phantom_event", f"got an event ({_about(observed[k])}) the stream never "
                                              f"dispatched, as event {k}")
    if not found:
        for k, e, o in pairs:
            if o.data != e.data:
                found.setdefault("data_differs", f"event {k}: {_where_data_differs(e.data, o.data)}")
            if o.event != e.event:
                found.setdefault("event_type_differs", f"event {k}: expected type {e.event!r}, got {o.event!r}")
            if ids and o.id != e.id:
                found.setdefault("event_id_differs", f"event {k}: expected last event id {e.id!r}, got {o.id!r}")
    return [(kind, found[kind]) for kind in SSE_KINDS if kind in found]


def _where_data_differs(expected: str, got: str) -> str:
    """The two datas around where they first differ: a long data line differs far past any fixed-width head."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    start = max(0, at - 30)
    head = f"from character {at}: " if start else ""
    return f"{head}expected data {expected[start:at + 50]!r}, got {got[start:at + 50]!r}"


def _about(event: SSEEvent) -> str:
    return f"type {event.event!r}, data {event.data[:60]!r}" + (f", id {event.id!r}" if event.id else "")
