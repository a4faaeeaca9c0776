"""The langchain-openai adapter: ChatOpenAI's chunk conversion, summed, fed the seed fixtures."""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

require("langchain_openai")

from langchain_core.messages import AIMessageChunk, message_chunk_to_message  # noqa: E402
from langchain_core.messages.tool import tool_call_chunk  # noqa: E402

from toolfuzz.targets.adapters.langchain_openai import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, TWO_CALLS, assert_registered, calls, case_of, kinds, seed  # noqa: E402
from tests.streams import chunk, head, sse  # noqa: E402

(LCO,) = TARGETS


def test_registered_with_the_installed_version():
    assert_registered(LCO, metadata.version("langchain-openai"))


def test_the_two_interleaved_calls_come_out_whole():
    assert calls(LCO, seed("two-calls-interleaved")) == TWO_CALLS


@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(name):
    assert kinds(LCO, seed(name)) == []


def test_a_repeated_name_is_concatenated():
    # merge_dicts appends every string but an equal id: a repeated name becomes 'ff'.
    wire = sse(chunk(head(0, "call_1", "f", '{"a"')), chunk({"index": 0, "function": {"name": "f", "arguments": ": 1}"}}),
               chunk(finish="tool_calls"))
    assert [c[2] for c in calls(LCO, case_of(wire))] == ["ff"]
    assert kinds(LCO, case_of(wire)) == ["name_differs"]


def test_a_finish_reason_sent_twice_is_concatenated_and_withholds_the_call():
    # Summing chunks concatenates response_metadata strings: 'tool_callstool_calls'.
    wire = sse(chunk(head(0, "call_1", "f", "{}")), chunk(finish="tool_calls"), chunk(finish="tool_calls"))
    assert [c[4] for c in calls(LCO, case_of(wire))] == [False]
    assert kinds(LCO, case_of(wire)) == ["complete_withheld"]


def test_the_parsed_view_repairs_truncated_arguments_into_a_value():
    # What the adapter does not report, shown here: AIMessage.tool_calls, which agents run,
    # holds truncated arguments completed by parse_partial_json, as a valid dict.
    full = AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk(name="f", args='{"path": "/var/lo',
                                                                        id="call_1", index=0)])
    assert message_chunk_to_message(full).tool_calls[0]["args"] == {"path": "/var/lo"}
