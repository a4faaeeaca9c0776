"""Cases in OpenAI chat completions chunks: choices, calls as ``delta.tool_calls`` fragments, ``[DONE]``.

Structure is drawn before content, and every choice's smallest draw is the
plain case: one choice, one call, the ``openai`` shape, one fragment, a
clean ``[DONE]``, LF framing, one read.  That is where shrinking ends.
"""

from __future__ import annotations

import bisect
import itertools
import json
from typing import Any, Collection

from hypothesis import strategies as st

from toolfuzz.vocabulary import END_OF_STREAM, Case, SSEEvent, StreamError, Tool
from toolfuzz.strategies.chunks import (
    ERROR_MESSAGES,
    azure_filter_chunk,
    content_filter_chunk,
    error_chunk,
    groupings,
    render_chunk,
    usage_chunk,
)
from toolfuzz.strategies.dialects.calls import LARGE_ARGUMENTS, fragment_features
from toolfuzz.strategies.endings import (break_schema, call_defects, corrupt_text, disconnects, finish_reasons,
                                        stream_endings, unknown_name)
from toolfuzz.strategies.expect import Sent, expected_outcome
from toolfuzz.strategies.fragments import fragments, to_utf16_units
from toolfuzz.strategies.framing import Payload, framings
from toolfuzz.strategies.interleave import interleavings, merge
from toolfuzz.strategies.plan import ID_STYLES, PlannedCall, Step, allows_interleaving, entry_steps, expected_index, make_id
from toolfuzz.strategies.profiles import PROFILES, compatible
from toolfuzz.strategies.reads import read_cuts, read_features
from toolfuzz.strategies.serialise import serialisations
from toolfuzz.strategies.stage import allows, boolean, integer, named, pick, stage

__all__ = ["DIALECT", "cases", "draw_case", "profile_sets"]

DIALECT = "openai-chat"


_TEXTS = ("Let me check that.", "I'll look that up.\n", "Un instant — je vérifie 😀")
_DONE = END_OF_STREAM[DIALECT]
_JUNK = ('{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"junk"}}]}}]}',
         "not json at all")


@stage
def profile_sets(draw: Any, allowed: Collection[str] = tuple(PROFILES)) -> frozenset[str]:
    """A compatible set of deviation profiles; the empty set (``openai``) is the simplest."""
    deviations = [p for p in PROFILES if p in allowed and p != "openai"]
    if not deviations or ("openai" in allowed and integer(draw, 0, 3) == 0):
        return frozenset()
    # One decision per profile, so that a plan's reduction can take any one of them out;
    # about three of them in a set.
    odds = max(1, len(deviations) // 3)
    chosen: list[str] = []
    for p in deviations:
        if integer(draw, 0, odds) == odds and compatible(chosen, p):
            chosen.append(p)
    if not chosen:
        chosen.append(pick(draw, deviations))
    return frozenset(chosen)


def cases(generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> st.SearchStrategy[Case]:
    """Chat completions cases for these tools' argument generators and call-shape profiles."""
    return _cases(generators, allowed)


def draw_case(draw: Any, generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> Case:
    """One case, drawn by Hypothesis's ``draw`` or a plan's Drawer (:mod:`toolfuzz.strategies.plans`)."""
    return _cases.draw(draw, generators, allowed)


class _Drawing:
    """What the calls of one case share while they are drawn: its profiles, its ids, the calls planned so far
    and the features they showed."""

    def __init__(self, draw: Any, generators: tuple[tuple[Tool, Any], ...], active: frozenset[str]) -> None:
        self.generators, self.active = generators, active
        self.tools = tuple(t for t, _ in generators)
        self.utf16 = "utf16-halves" in active
        self.style = pick(draw, ID_STYLES)
        self.serial = itertools.count(1)
        self.planned: list[PlannedCall] = []
        self.features: set[str] = set()

    def new_id(self) -> str | int:
        n = next(self.serial)
        return 1000 + n if "integer-id" in self.active else make_id(self.style, n)

    def call(self, draw: Any, c: int, k: int) -> PlannedCall:
        """The k-th call of choice c: its tool, arguments, serialisation, defect, id and fragments."""
        active, utf16 = self.active, self.utf16
        tool, arguments = pick(draw, self.generators)
        defect = call_defects.draw(draw)
        value = draw(arguments)
        for _ in range(3 if utf16 else 0):
            # utf16-halves needs a character outside the BMP to cut in two.
            if any(ord(ch) > 0xFFFF for ch in json.dumps(value, ensure_ascii=False)):
                break
            value = draw(arguments)
        if defect == "schema-invalid":
            value = break_schema(value, dict(tool.parameters), integer(draw, 0, 3))
        text = serialisations.draw(draw, value, ascii_only=False if utf16 else None)
        if defect == "invalid-json":
            text = corrupt_text.draw(draw, text)
        name = unknown_name(tool.name, self.tools) if defect == "unknown-tool" else tool.name
        call_id = self.new_id()
        if "empty-id" in active and integer(draw, 0, 2) == 2:
            call_id = None
        units = to_utf16_units(text) if utf16 else text
        pieces = [units] if "whole-call" in active else fragments.draw(draw, units, must=("surrogate" if utf16 else None))
        call = PlannedCall(len(self.planned), c, k, tool, name, call_id, value, text, pieces, defect)
        self.planned.append(call)
        if defect:
            self.features.add(defect)
        return call

    def choice(self, draw: Any, c: int, completing: str) -> tuple[list[Step], str]:
        """Choice c's steps, in the order they are sent, and the reason it finishes for."""
        active = self.active
        n_calls = integer(draw, 0, 7)
        n_calls = 1 if n_calls < 4 else 2 if n_calls < 7 else 3
        mine = []
        for k in range(n_calls):
            with named(draw, "call"):
                mine.append(self.call(draw, c, k))
        entries = [entry_steps(call, active, self.new_id) for call in mine]
        order = interleavings.draw(draw, [len(e) for e in entries],
                                   allow=allows_interleaving(active) and allows("interleaved"))
        if order != sorted(order):
            self.features.add("interleaved")
        steps = merge(entries, order)
        reason = finish_reasons.draw(draw, completing)
        if "finish-with-arguments" in active:
            steps[-1].reason = reason
        else:
            steps.append(Step(c, "finish", reason=reason))
        prefix = []
        if "no-role-chunk" not in active:
            prefix.append(Step(c, "role", content=pick(draw, [None, ""])))
        if "text-before-calls" in active:
            prefix.append(Step(c, "text", content=pick(draw, _TEXTS)))
        return prefix + steps, reason


@stage
def _cases(draw: Any, generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> Case:
    active = profile_sets.draw(draw, allowed)
    drawing = _Drawing(draw, generators, active)
    completing = "stop" if "stop-finish" in active else "tool_calls"
    n_choices = integer(draw, 0, 7)
    n_choices = 1 if n_choices < 5 or not allows("multi-choice") else 2 if n_choices < 7 else 3
    choice_steps: list[list[Step]] = []
    reasons = []
    for c in range(n_choices):
        with named(draw, "choice"):
            steps, reason = drawing.choice(draw, c, completing)
        choice_steps.append(steps)
        reasons.append(reason)
    ordered = merge(choice_steps, interleavings.draw(draw, [len(s) for s in choice_steps]))
    groups = groupings.draw(draw, ordered, active)
    items, ending = _items(draw, groups, active, n_choices)
    features = drawing.features
    features.add(ending)
    framed = framings.draw(draw, [p for p, _ in items])
    wire = _cut(draw, framed, items, ending, features)
    dispatched, events = _dispatched(framed, items, wire)
    planned = drawing.planned
    used: list[Tool] = []
    for call in planned:
        if call.tool not in used:
            used.append(call.tool)
    indexes = {call.number: expected_index(call.position, active) for call in planned}
    expected = expected_outcome(dispatched, indexes, used)
    reads = read_cuts.draw(draw, wire)

    features |= _shape_features(active, planned, groups, reasons, n_choices)
    features |= set(framed.features) | read_features(wire, reads)
    if len(reads) > 1 and _burst(reads, [ev.dispatch_at for ev in framed.events if ev.dispatch_at]):
        features.add("burst-read")
    return Case(reads=reads, expected=expected, tools=tuple(used), dialect=DIALECT,
                features=tuple(sorted(features)), events=tuple(events))


def _items(draw: Any, groups: list, active: frozenset[str], n_choices: int) -> tuple[list[tuple[Payload, Sent]], str]:
    """The payloads in the order they are sent, the server's extra chunks and the ending among them; and the
    ending drawn."""
    items: list[tuple[Payload, Sent]] = [(Payload(render_chunk(g, active)), Sent("chunk", tuple(g))) for g in groups]
    if "content-filter-chunk" in active:
        at = integer(draw, 0, len(items))
        items.insert(at, (Payload(content_filter_chunk(integer(draw, 0, n_choices - 1))), Sent("other")))
    if "azure-filter-chunk" in active:
        items.insert(0, (Payload(azure_filter_chunk()), Sent("other")))
    if "usage-chunk" in active:
        items.append((Payload(usage_chunk(active)), Sent("other")))
    ending = stream_endings.draw(draw)
    if ending in ("error-chunk", "error-event"):
        at = integer(draw, 0, len(items))
        message = pick(draw, ERROR_MESSAGES)
        error = Payload(error_chunk(message), event="error" if ending == "error-event" else None)
        items = items[:at] + [(error, Sent("error", error=StreamError("server_error", message[:500])))]
        if boolean(draw):
            items.append((Payload(_DONE), Sent("done")))
    elif ending != "no-done":
        items.append((Payload(_DONE), Sent("done")))
        if ending == "after-done":
            items.append((Payload(pick(draw, _JUNK)), Sent("other")))
            items.append((Payload(_DONE), Sent("done")))
    return items, ending


def _cut(draw: Any, framed: Any, items: list[tuple[Payload, Sent]], ending: str, features: set[str]) -> bytes:
    """The wire as the server sent it: cut where a disconnect cut it."""
    wire = framed.wire
    if ending == "disconnect" and len(wire) > 1:
        cut = disconnects.draw(draw, [
            (ev.start, ev.dispatch_at or ev.end, any(s.arguments for s in items[ev.payload][1].steps),
             items[ev.payload][1].kind == "done" or any(s.reason for s in items[ev.payload][1].steps))
            for ev in framed.events], len(wire))
        if any(s.arguments for ev in framed.events if ev.start < cut < (ev.dispatch_at or ev.end + 1)
               for s in items[ev.payload][1].steps):
            features.add("disconnect-mid-arguments")
        wire = wire[:cut]
    return wire


def _dispatched(framed: Any, items: list[tuple[Payload, Sent]], wire: bytes) -> tuple[list[Sent], list[SSEEvent]]:
    """What the wire delivers whole: each payload sent, and the SSE events, known by construction, that the
    sse-level targets are judged on."""
    dispatched, events = [], []
    for ev in framed.events:
        if ev.dispatch_at is None or ev.dispatch_at > len(wire):
            break
        payload, sent = items[ev.payload]
        events.append(SSEEvent(ev.data.decode("utf-8"), payload.event or "message", ev.last_id))
        if payload.event == "error":
            sent = Sent("error", error=StreamError("server_error", ev.data.decode("utf-8", "replace")[:500]))
        dispatched.append(sent)
    return dispatched, events


def _burst(reads: tuple[bytes, ...], dispatches: list[int]) -> bool:
    """Whether one read completes four events or more (``dispatches`` ascend)."""
    at = 0
    for r in reads:
        end = at + len(r)
        if bisect.bisect_right(dispatches, end) - bisect.bisect_right(dispatches, at) >= 4:
            return True
        at = end
    return False


def _shape_features(active: frozenset[str], planned: list[PlannedCall], groups: list[list[Step]],
                    reasons: list[str], n_choices: int) -> set[str]:
    out = set(active)
    if "utf16-halves" in active and not any(
            a and "\ud800" <= a[-1] <= "\udbff" for call in planned for a in call.fragments[:-1]):
        out.discard("utf16-halves")  # no astral character to cut: the profile was not exercised
    if not out & set(PROFILES):
        out.add("openai")
    if n_choices > 1:
        out.add("multi-choice")
    if any(sum(1 for c in planned if c.choice == ch) > 1 for ch in range(n_choices)):
        out.add("multi-call")
    for g in groups:
        if len({s.choice for s in g}) > 1:
            out.add("multi-choice-chunk")
        for ch in {s.choice for s in g}:
            calls = [s.call for s in g if s.choice == ch and s.kind == "entry"]
            # Entries of several calls in one chunk are what vLLM sends; two entries of one call are not
            # known from any server, so they are a shape of their own, with its own evidence.
            if len(set(calls)) > 1:
                out.add("multi-entry-chunk")
            if len(set(calls)) < len(calls):
                out.add("same-call-entries")
    if "length" in reasons:
        out.add("length")
    if "content_filter" in reasons:
        out.add("content-filter-finish")
    return out | fragment_features(planned, LARGE_ARGUMENTS)
