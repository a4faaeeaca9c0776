"""The llama-index adapter: update_tool_calls as stream_chat drives it, fed the seed fixtures.

llama-index-llms-openai needs openai<3, so this runs in its own environment (docs/adapters.md).
"""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

require("llama_index.llms.openai")

from toolfuzz.targets.adapters.llama_index import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, assert_registered, calls, case_of, kinds, seed  # noqa: E402
from tests.streams import chunk, head, sse  # noqa: E402

(LLAMA,) = TARGETS


def typed(index, call_id, name, arguments):
    """A call's first fragment with ``type``, as OpenAI sends it: llama-index refuses a call without one."""
    return {**head(index, call_id, name, arguments), "type": "function"}

KNOWN = {
    # No finish notion: a cut stream's call is run.
    "closing-brace-is-not-completion": ["incomplete_handed_on"],
    # parse_partial_json completes what is cut off, so a finished call with broken JSON runs repaired.
    "completed-invalid-json": ["arguments_differ"],
    "disconnect-mid-arguments": ["arguments_differ", "incomplete_handed_on"],
    # update_tool_calls compares a delta with the last call only: call 0 resuming after call 1
    # started opens a third call with no type, which get_tool_calls_from_response refuses.
    "two-calls-interleaved": ["raised"],
}


def test_registered_with_the_installed_version():
    assert_registered(LLAMA, metadata.version("llama-index-llms-openai"))


def test_the_two_interleaved_calls_make_it_raise():
    assert kinds(LLAMA, seed("two-calls-interleaved")) == ["raised"]


def test_a_call_without_a_type_makes_it_raise():
    wire = sse(chunk(head(0, "call_a", "f", "{}")), chunk(finish="tool_calls"))
    assert kinds(LLAMA, case_of(wire)) == ["raised"]


@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(name):
    assert kinds(LLAMA, seed(name)) == KNOWN.get(name, [])


def test_two_calls_one_after_the_other_come_out_whole():
    wire = sse(chunk(typed(0, "call_a", "f", '{"a": 1}')), chunk(typed(1, "call_b", "g", '{"b": 2}')),
               chunk(finish="tool_calls"))
    assert calls(LLAMA, case_of(wire)) == [(0, "call_a", "f", '{"a": 1}', True), (1, "call_b", "g", '{"b": 2}', True)]


def test_a_repeated_id_is_concatenated():
    # The same index does += on the id as on the arguments.
    wire = sse(chunk(typed(0, "call_1", "f", '{"a"')), chunk({"index": 0, "id": "call_1", "function": {"arguments": ": 1}"}}),
               chunk(finish="tool_calls"))
    assert [c[1] for c in calls(LLAMA, case_of(wire))] == ["call_1call_1"]
    assert kinds(LLAMA, case_of(wire)) == ["id_differs"]
