"""OpenAI Responses cases (strategies/dialects/responses.py): the wire the SDK reads, the shapes the profiles name."""

from __future__ import annotations

import json

from hypothesis import Phase, assume, find, given, settings
from hypothesis.errors import InvalidArgument
import pytest

from toolfuzz import strategies
from tests.adapter_checks import require
from tests.dialect_streams import whole_characters
from toolfuzz.vocabulary import Tool
from toolfuzz.judge.feeding import chunks_of, parse_chunks
from toolfuzz.strategies.profiles import RESPONSES_PROFILES
from toolfuzz.strategies.cases import PLAIN_WIRE

R = "openai-responses"
#: find() without the explain phase, which replays each shrunk case many times and teaches nothing here.
QUICK = settings(database=None, max_examples=1000, phases=[Phase.generate, Phase.shrink])
#: One small tool: the find() tests shrink their cases, which is cheap only with small arguments.
SMALL = [Tool("get_weather", {"type": "object", "properties": {"city": {"type": "string", "maxLength": 8}},
                              "required": ["city"], "additionalProperties": False})]


@pytest.fixture(scope="module")
def sdk():
    """The SDK's decoder and event types: openai is an adapter's extra, not the test extra's, so only the test
    that reads through it skips without it (and fails under CI)."""
    require("openai")
    from openai._models import validate_type
    from openai._streaming import SSEDecoder
    from openai.types.responses import ResponseStreamEvent
    return SSEDecoder, validate_type, ResponseStreamEvent


@settings(max_examples=60)
@given(strategies.cases(dialect=R))
def test_generated_streams_decode_through_the_sdk_and_validate_as_its_event_types(sdk, case):
    SSEDecoder, validate_type, ResponseStreamEvent = sdk
    # The SDK's decoder does not drop a byte-order mark (its first field name would keep it): not a wire for it.
    assume("bom" not in case.features)
    # A wire cut inside a character (a disconnect) makes the SDK's decoder raise on its last line: not a wire it reads.
    assume(whole_characters(case.wire))
    got = [e for e in SSEDecoder().iter_bytes(iter(case.reads)) if e.event is not None or e.data]
    assert [(e.event, e.data) for e in got] == [(e.event, e.data) for e in case.events]
    numbers = []
    for e in got:
        data = json.loads(e.data)
        assert data["type"] == e.event
        validate_type(type_=ResponseStreamEvent, value=data)
        numbers.append(data["sequence_number"])
    assert numbers == list(range(len(numbers)))  # counts every event, inserted errors included
    assert all(e.data != "[DONE]" for e in got)


def test_the_simplest_case_is_the_documented_shape():
    case = find(strategies.cases(SMALL, dialect=R), lambda c: True, settings=QUICK)
    # the dialect's name stays, so that its findings are never filed as another dialect's
    assert set(case.features) == PLAIN_WIRE - {"openai"} | {"responses"}
    types = [e["type"] for e in parse_chunks(chunks_of(case))]
    assert types == ["response.created", "response.in_progress", "response.output_item.added",
                     "response.function_call_arguments.delta", "response.function_call_arguments.done",
                     "response.output_item.done", "response.completed"]
    (c,) = case.expected.calls
    assert c.status == "complete" and c.index == 0 and c.id.startswith("call_")


@pytest.mark.parametrize("profile", [p for p in RESPONSES_PROFILES if p != "responses"])
def test_each_profile_shows_on_the_wire(profile):
    case = find(strategies.cases(SMALL, dialect=R, profiles=[profile]), lambda c: profile in c.features,
                settings=QUICK)
    events = parse_chunks(chunks_of(case))
    calls = [e for e in events if e["type"] == "response.output_item.added" and e["item"]["type"] == "function_call"]
    deltas = [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    dones = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    shown = {
        "reasoning-first": lambda: events[2]["item"]["type"] == "reasoning" and calls[0]["output_index"] == 1,
        "text-before-calls": lambda: any(e["type"] == "response.output_text.delta" for e in events),
        "obfuscation": lambda: all("obfuscation" in d for d in deltas),
        "done-with-name": lambda: all("name" in d for d in dones),
        "whole-arguments": lambda: len(deltas) == len(calls),
        "interleaved-items": lambda: "interleaved" in case.features,
        "arguments-only-in-done": lambda: not deltas and [d["arguments"] for d in dones]
        == [c.arguments for c in case.expected.calls],
        "rotating-item-id": lambda: len({d["item_id"] for d in deltas + dones} - {c["item"]["id"] for c in calls})
        == len(deltas + dones),
    }[profile]
    assert shown(), events
    assert [c.index for c in case.expected.calls] == [c["output_index"] for c in calls]
    assert RESPONSES_PROFILES[profile].evidence


def test_profiles_of_another_dialect_are_refused():
    with pytest.raises(InvalidArgument, match="unknown profile 'ping-between-deltas' for dialect openai-responses"):
        strategies.cases(dialect=R, profiles=["ping-between-deltas"])


def test_a_call_is_named_by_its_call_id_and_its_deltas_by_its_item_id():
    case = find(strategies.cases(SMALL, dialect=R), lambda c: len(c.expected.calls) == 2
                and "rotating-item-id" not in c.features, settings=QUICK)
    events = parse_chunks(chunks_of(case))
    items = {e["item"]["id"]: e["item"]["call_id"] for e in events
             if e["type"] == "response.output_item.added" and e["item"]["type"] == "function_call"}
    assert [c.id for c in case.expected.calls] == list(items.values())
    assert all(e["item_id"] in items for e in events if e["type"] == "response.function_call_arguments.delta")
    assert not set(items) & {c.id for c in case.expected.calls}
