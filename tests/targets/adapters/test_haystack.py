"""The haystack adapter: OpenAIChatGenerator's chunk conversion and message join, fed the seed fixtures."""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

require("haystack")

from toolfuzz.targets.adapters.haystack import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, TWO_CALLS, assert_registered, calls, case_of, kinds, seed  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402

(HAYSTACK,) = TARGETS
#: haystack runs every call of the message whatever the finish reason, and skips (with a
#: warning) a finished call whose arguments do not parse: a user never learns it was made.
KNOWN = {"closing-brace-is-not-completion": ["incomplete_handed_on"],
         "completed-invalid-json": ["call_lost"]}


def test_registered_with_the_installed_version():
    assert_registered(HAYSTACK, metadata.version("haystack-ai"))


def test_the_two_interleaved_calls_come_out_whole():
    assert calls(HAYSTACK, seed("two-calls-interleaved")) == TWO_CALLS


@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(name):
    assert kinds(HAYSTACK, seed(name)) == KNOWN.get(name, [])


def test_arguments_written_differently_are_reported_as_the_stream_wrote_them():
    # haystack keeps the parsed value only; the same value is not a rewrite.
    wire = sse(chunk(head(0, "call_1", "f", '{ "a" :1 }')), chunk(finish="tool_calls"))
    assert calls(HAYSTACK, case_of(wire)) == [(0, "call_1", "f", '{ "a" :1 }', True)]


def test_a_repeated_name_is_concatenated():
    # Names are joined with += per index: a server repeating the name gives a user the tool 'ff'.
    wire = sse(chunk(head(0, "call_1", "f", '{"a"')), chunk({"index": 0, "function": {"name": "f", "arguments": ": 1}"}}),
               chunk(finish="tool_calls"))
    assert [c[2] for c in calls(HAYSTACK, case_of(wire))] == ["ff"]
    assert kinds(HAYSTACK, case_of(wire)) == ["name_differs"]


def test_a_finished_call_with_broken_arguments_disappears():
    wire = sse(chunk(head(0, "call_1", "f", '{"a": ')), chunk(frag(0, "1")), chunk(finish="tool_calls"))
    assert calls(HAYSTACK, case_of(wire)) == []
    assert kinds(HAYSTACK, case_of(wire)) == ["call_lost"]
