"""The pydantic-ai adapters: the parts manager alone, and OpenAIChatModel over an in-process transport."""

from __future__ import annotations

import dataclasses
from importlib import metadata

import pytest

from tests.adapter_checks import require, require_adapter

require("pydantic_ai")
# Written for pydantic-ai's 1.0 API: toolfuzz verify runs this module on 0.x releases too.
require_adapter("pydantic-ai-parts")

from pydantic_ai.messages import ModelResponse  # noqa: E402

from toolfuzz.targets.adapters.pydantic_ai import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, TWO_CALLS, assert_registered, calls, case_of, kinds, seed  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402

PARTS, MODEL = TARGETS


def sent(*payloads, done=True):
    """Chunks framed with the fields OpenAI always sends: pydantic-ai 1.0 reads ``created``
    as a timestamp and fails validation without it (later releases check first)."""
    return sse(*({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": "m", **p}
                 for p in payloads), done=done)

#: A stream that ends without a finish reason gets the finish reason 'stop' from pydantic-ai,
#: so its calls look finished.  The parts manager claims no completion, so it has none of these.
KNOWN = {(MODEL.name, "closing-brace-is-not-completion"): ["incomplete_handed_on"],
         (MODEL.name, "disconnect-mid-arguments"): ["incomplete_handed_on"]}


def test_registered_with_the_installed_version():
    for target in TARGETS:
        assert_registered(target, metadata.version("pydantic-ai-slim"))
    assert (PARTS.level, MODEL.level) == ("events", "bytes") and "completion" not in PARTS.reports


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_the_two_interleaved_calls_come_out_whole(target):
    expected = TWO_CALLS if target is MODEL else [c[:4] + (True,) for c in TWO_CALLS]
    assert calls(target, seed("two-calls-interleaved")) == expected


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(target, name):
    assert kinds(target, seed(name)) == KNOWN.get((target.name, name), [])


def test_a_disconnect_is_finished_with_stop():
    wire = sent(chunk(head(0, "call_1", "f", '{"a": 1}')), done=False)
    assert calls(MODEL, case_of(wire)) == [(0, "call_1", "f", '{"a": 1}', True)]
    assert kinds(MODEL, case_of(wire)) == ["incomplete_handed_on"]


def test_a_length_finish_withholds_the_call_where_responses_have_a_finish_reason():
    # Releases whose ModelResponse has no finish_reason (1.0) keep no trace of it: the
    # agent runs the call, so it is handed on; later ones map 'length' to 'length'.
    wire = sent(chunk(head(0, "call_1", "f", '{"a": 1')), chunk(finish="length"))
    has_finish = "finish_reason" in {f.name for f in dataclasses.fields(ModelResponse)}
    assert [c[4] for c in calls(MODEL, case_of(wire))] == [not has_finish]
    assert kinds(MODEL, case_of(wire)) == ([] if has_finish else ["incomplete_handed_on"])


def test_a_call_without_an_id_gets_none_not_the_made_up_one():
    wire = sent(chunk(head(0, None, "f", "{}")), chunk(finish="tool_calls"))
    assert [c[1] for c in calls(PARTS, case_of(wire))] == [None]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_a_repeated_name_is_concatenated(target):
    # The parts manager appends every tool-name delta to the name: a server repeating
    # the name on each fragment gives a user the tool 'ff'.
    wire = sent(chunk(head(0, "call_1", "f", '{"a"')), chunk({"index": 0, "function": {"name": "f", "arguments": ": 1}"}}),
               chunk(finish="tool_calls"))
    assert [c[2] for c in calls(target, case_of(wire))] == ["ff"]
    assert kinds(target, case_of(wire)) == ["name_differs"]


def test_an_integer_id_is_kept_as_pydantic_ai_keeps_it():
    # pydantic-ai stores whatever id the SDK built; only its own made-up ids are reported as none.
    wire = sent(chunk({**head(0, None, "f", "{}"), "id": 7}), chunk(finish="tool_calls"))
    assert kinds(PARTS, case_of(wire)) == []


def test_calls_sent_without_an_index_are_kept_apart_with_none():
    # A part opened without a vendor_part_id is keyed by nothing: each call stands apart, with no index, as the
    # wire had it; the judge does not hold it to the position the contract numbers such a call by.
    wire = sent({"choices": [{"index": 0, "delta": {"tool_calls": [head(None, "call_a", "f", "")]}}]},
                {"choices": [{"index": 0, "delta": {"tool_calls": [frag(None, '{"a":1}')]}}]},
                {"choices": [{"index": 0, "delta": {"tool_calls": [head(None, "call_b", "g", '{"b":2}')]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    for target in TARGETS:
        assert calls(target, case_of(wire)) == [(None, "call_a", "f", '{"a":1}', True),
                                                (None, "call_b", "g", '{"b":2}', True)]
        assert kinds(target, case_of(wire)) == []
