"""The openai-agents adapter: ChatCmplStreamHandler.handle_stream, fed the seed fixtures and hand-made streams."""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require, require_adapter

require("agents")
# ChatCmplStreamHandler came in openai-agents 0.0.12: toolfuzz verify runs this module on releases before it too.
require_adapter("openai-agents")

from toolfuzz.targets.adapters.openai_agents import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, TWO_CALLS, assert_registered, calls, case_of, kinds, seed  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402

(AGENTS,) = TARGETS
#: The Runner runs every function_call of response.completed; the handler checks no finish
#: reason for an endpoint that is not OpenAI's, so a stream that simply ends hands its call on.
KNOWN = {"closing-brace-is-not-completion": ["incomplete_handed_on"],
         "disconnect-mid-arguments": ["incomplete_handed_on"]}


def test_registered_with_the_installed_version():
    assert_registered(AGENTS, metadata.version("openai-agents"))


def test_the_two_interleaved_calls_come_out_whole():
    assert calls(AGENTS, seed("two-calls-interleaved")) == TWO_CALLS


@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(name):
    assert kinds(AGENTS, seed(name)) == KNOWN.get(name, [])


def _release() -> tuple[int, ...]:
    return tuple(int(part) for part in metadata.version("openai-agents").split(".")[:2])


def test_a_second_choice_is_ignored_from_0_18_and_mixed_into_the_first_before():
    # From 0.18 the handler reads the choice whose index is 0 and ignores (with a warning)
    # the others: choice 1's call is lost to the user.  Before, it read choices[0] of each
    # chunk whatever its index, so choice 1's fragments extended choice 0's call.
    wire = sse(chunk(head(0, "call_a", "f", "{}"), choice=0), chunk(head(0, "call_b", "g", "{}"), choice=1),
               {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"},
                            {"index": 1, "delta": {}, "finish_reason": "tool_calls"}]})
    if _release() >= (0, 18):
        assert [c[1] for c in calls(AGENTS, case_of(wire))] == ["call_a"]
        assert kinds(AGENTS, case_of(wire)) == ["call_lost"]
    else:
        assert calls(AGENTS, case_of(wire)) == [(0, "call_b", "g", "{}{}", True)]
        assert kinds(AGENTS, case_of(wire)) == ["choices_mixed"]


def test_calls_sent_without_an_index_keep_none_and_two_of_them_are_merged():
    # Keyed by the wire's index (state.function_calls[tc_delta.index]): one call the wire sent without an
    # index is assembled right and kept with none, as the wire had it; a second one lands on the same key.
    one = sse(chunk(head(None, "call_a", "f", "")), chunk(frag(None, '{"a":1}')), chunk(finish="tool_calls"))
    two = sse(chunk(head(None, "call_a", "f", "")), chunk(frag(None, '{"a":1}')), chunk(head(None, "call_b", "g", "")),
              chunk(frag(None, '{"b":2}')), chunk(finish="tool_calls"))
    assert calls(AGENTS, case_of(one)) == [(None, "call_a", "f", '{"a":1}', True)] and kinds(AGENTS, case_of(one)) == []
    assert kinds(AGENTS, case_of(two)) == ["arguments_misattributed"]
