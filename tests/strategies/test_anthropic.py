"""Anthropic Messages cases (strategies/dialects/anthropic.py): the wire the SDK reads, the shapes the profiles name."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, assume, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
import pytest

from toolfuzz import strategies
from tests.adapter_checks import require
from toolfuzz.vocabulary import COMPLETING
from toolfuzz.judge.feeding import chunks_of, parse_chunks
from tests.dialect_streams import QUICK, SMALL, whole_characters
from toolfuzz.strategies.dialects import anthropic, responses
from toolfuzz.strategies.dialects.calls import plan_calls
from toolfuzz.strategies.profiles import ANTHROPIC_PROFILES
from toolfuzz.strategies.cases import PLAIN_WIRE

A = "anthropic"


@pytest.fixture(scope="module")
def sdk():
    """The SDK's decoder and event types: anthropic is an adapter's extra, not the test extra's, so only the test
    that reads through it skips without it (and fails under CI)."""
    require("anthropic")
    from anthropic._models import validate_type
    from anthropic._streaming import SSEDecoder
    from anthropic.types import RawMessageStreamEvent
    return SSEDecoder, validate_type, RawMessageStreamEvent


@settings(max_examples=60)
@given(strategies.cases(dialect=A))
def test_generated_streams_decode_through_the_sdk_and_construct_as_its_event_types(sdk, case):
    SSEDecoder, validate_type, RawMessageStreamEvent = sdk
    # The SDK's decoder does not drop a byte-order mark (its first field name would keep it): not a wire for it.
    assume("bom" not in case.features)
    # A wire cut inside a character (a disconnect) makes the SDK's decoder raise on its last line: not a wire it reads.
    assume(whole_characters(case.wire))
    # It dispatches a blank line after an `id:` as an unnamed event, which its Stream skips: so do we.
    got = [e for e in SSEDecoder().iter_bytes(iter(case.reads)) if e.event is not None or e.data]
    assert [(e.event, e.data) for e in got] == [(e.event, e.data) for e in case.events]
    for e in got:
        data = json.loads(e.data)
        assert data["type"] == e.event
        if e.event not in ("ping", "error"):  # the SDK skips pings and raises on errors before constructing
            validate_type(type_=RawMessageStreamEvent, value=data)


def test_the_simplest_case_is_the_documented_shape():
    case = find(strategies.cases(SMALL, dialect=A), lambda c: True, settings=QUICK)
    # the dialect's name stays, so that its findings are never filed as another dialect's
    assert set(case.features) == PLAIN_WIRE - {"openai"} | {"anthropic"}
    types = [e["type"] for e in parse_chunks(chunks_of(case))]
    assert types == ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                     "message_delta", "message_stop"]
    assert [c.status for c in case.expected.calls] == ["complete"]


@pytest.mark.parametrize("profile", [p for p in ANTHROPIC_PROFILES if p != "anthropic"])
def test_each_profile_shows_on_the_wire(profile):
    case = find(strategies.cases(SMALL, dialect=A, profiles=[profile]), lambda c: profile in c.features, settings=QUICK)
    events = parse_chunks(chunks_of(case))
    tools = [e for e in events if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"]
    parts = [e["delta"].get("partial_json") for e in events if e["type"] == "content_block_delta"]
    shown = {
        "empty-first-delta": lambda: parts[0] == "" and len(parts) >= 2,
        "ping-between-deltas": lambda: any(e["type"] == "ping" for e in events),
        "text-before-tools": lambda: tools[0]["index"] == 1 and case.expected.calls[0].index == 1,
        "thinking-before-tools": lambda: events[1]["content_block"]["type"] == "thinking" and tools[0]["index"] == 1,
        "block-extras": lambda: "caller" in tools[0]["content_block"],
        "whole-input": lambda: len([p for p in parts if p]) <= len(tools),
        "interleaved-blocks": lambda: "interleaved" in case.features,
        "server-tool-block": lambda: [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"][:2]
        == ["server_tool_use", "tool_search_tool_result"] and tools[0]["index"] == case.expected.calls[0].index == 2,
        "input-at-start": lambda: any(t["content_block"]["input"] and t["content_block"]["caller"]["type"]
                                      == "code_execution_20250825" for t in tools),
        "whole-message-start": lambda: [e["type"] for e in events] == ["message_start", "message_stop"]
        and [b["id"] for b in events[0]["message"]["content"]] == [c.id for c in case.expected.calls]
        and events[0]["message"]["stop_reason"] == "tool_use",
    }[profile]
    assert shown(), events
    assert ANTHROPIC_PROFILES[profile].evidence


def test_profiles_of_another_dialect_are_refused():
    with pytest.raises(InvalidArgument, match="unknown profile 'index-zero' for dialect anthropic"):
        strategies.cases(dialect=A, profiles=["index-zero"])


def test_every_event_is_named_by_its_type_and_ids_are_tool_use_ids():
    case = find(strategies.cases(SMALL, dialect=A), lambda c: len(c.expected.calls) == 2, settings=QUICK)
    assert all(e.event == json.loads(e.data)["type"] for e in case.events)
    assert all(c.id.startswith("toolu_") for c in case.expected.calls)


@settings(max_examples=20)
@given(st.data())
def test_the_same_planned_calls_render_in_both_event_dialects(data):
    tools = strategies.bundled_tools()[:3]
    generators = tuple((t, strategies.tool_arguments(t)) for t in tools)
    planned = data.draw(st.composite(lambda draw: plan_calls(draw, generators, str, whole=False))())
    rendered = {}
    for module in (anthropic, responses):
        items, _ = data.draw(st.composite(lambda draw: module.render(draw, planned, frozenset(), COMPLETING[module.DIALECT][0]))())
        rendered[module.PLAIN] = [(m.call, m.text) for _, marks in items for m in marks if m.kind == "args" and m.text]
    assert rendered["anthropic"] == rendered["responses"] == [(c.number, f) for c in planned for f in c.fragments if f]


@pytest.mark.parametrize("dialect", [A, "openai-responses"])
# About one case in ten ends in an error: most draws are filtered out, on purpose.
@settings(max_examples=30, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_an_error_event_ends_the_stream_in_place_of_its_terminal_event(dialect, data):
    case = data.draw(strategies.cases(dialect=dialect))
    assume("error-event" in case.features or "failed" in case.features)
    # Read off the wire, not the dispatched events: an unterminated last event is on the wire but never dispatched.
    types = re.findall(rb"^event: ?([\w.]+)\r?$", case.wire.replace(b"\r\n", b"\n").replace(b"\r", b"\n"), re.M)
    assert types[-1] in (b"error", b"response.failed") and types.count(types[-1]) == 1
    assert not {b"message_stop", b"response.completed", b"response.incomplete"} & set(types)
