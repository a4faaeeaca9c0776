"""The smolagents adapter: agglomerate_stream_deltas, fed the seed fixtures and hand-made streams."""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require, require_adapter

require("smolagents")
# agglomerate_stream_deltas came in smolagents 1.19.0: toolfuzz verify runs this module on releases before it too.
require_adapter("smolagents-agglomerate")

from toolfuzz.targets.adapters.smolagents import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, TWO_CALLS, assert_registered, calls, case_of, kinds, run, seed  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402

(AGG,) = TARGETS
#: smolagents keeps no finish reason: a call the stream never finished is run all the same.
KNOWN = {"closing-brace-is-not-completion": ["incomplete_handed_on"],
         "disconnect-mid-arguments": ["incomplete_handed_on"]}


def test_registered_with_the_installed_version():
    assert_registered(AGG, metadata.version("smolagents"))


def test_the_two_interleaved_calls_come_out_whole():
    assert calls(AGG, seed("two-calls-interleaved")) == TWO_CALLS


@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(name):
    assert kinds(AGG, seed(name)) == KNOWN.get(name, [])


def test_a_fragment_without_an_index_makes_it_raise():
    # agglomerate keys calls by index and raises ValueError on a delta without one.
    wire = sse(chunk(head(None, "call_1", "f", '{"a"')), chunk(frag(None, ": 1}")), chunk(finish="tool_calls"))
    assert kinds(AGG, case_of(wire)) == ["raised"]


def test_a_stream_cut_before_the_finish_still_hands_the_call_on():
    wire = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), done=False)
    assert calls(AGG, case_of(wire)) == [(0, "call_1", "f", '{"a": 1}', True)]
    assert kinds(AGG, case_of(wire)) == ["incomplete_handed_on"]


def test_an_error_chunk_raises_as_the_sdk_does_and_hands_nothing_on():
    # The openai SDK raises on the error chunk before generate_stream sees it; with nothing
    # finished in the stream, refusing it loses nothing.
    wire = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), {"error": {"message": "overloaded"}})
    assert str(run(AGG, case_of(wire)).crash_state).startswith("APIError at openai._streaming.Stream.__stream__ < ")
    assert kinds(AGG, case_of(wire)) == []


def test_the_error_chunk_s_raise_after_a_finished_call_is_the_sdk_reporting_the_server_s_error():
    # A call finished, then the server's error: the SDK raises it on purpose, and smolagents passes the
    # raise on, as openai-client shows it. The server gave the response up, so neither is a divergence.
    from toolfuzz.targets.registry import builtin_targets

    wire = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), chunk(finish="tool_calls"),
               {"error": {"message": "overloaded"}})
    client = builtin_targets(["openai-client"])["openai-client"]
    assert case_of(wire).expected.executable() and case_of(wire).expected.error is not None
    assert str(run(client, case_of(wire)).crash_state).startswith("APIError at openai._streaming.Stream.__stream__ < ")
    assert str(run(AGG, case_of(wire)).crash_state).startswith("APIError at openai._streaming.Stream.__stream__ < ")
    assert kinds(client, case_of(wire)) == kinds(AGG, case_of(wire)) == []


def test_azure_s_content_filter_chunk_raises_in_smolagents_own_generate_stream():
    # The annotation chunk's choice has no delta and no finish reason: generate_stream raises on it, in
    # smolagents' code (the crash state a maintainer reads), and the finished call is lost.
    annotation = {"id": "", "object": "", "created": 0, "model": "", "choices": [
        {"index": 0, "finish_reason": None, "content_filter_results": {}}]}
    wire = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), annotation, chunk(finish="tool_calls"))
    seen = run(AGG, case_of(wire))
    assert seen.raised.startswith("ValueError: No content or tool calls in event")
    assert str(seen.crash_state).startswith("ValueError at smolagents.models.OpenAIModel.generate_stream")
    assert kinds(AGG, case_of(wire)) == ["raised"]
