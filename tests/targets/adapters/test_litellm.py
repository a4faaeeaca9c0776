"""The litellm adapters: stream_chunk_builder alone, and litellm.completion over an in-process transport."""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

require("litellm")

from toolfuzz.targets.adapters.litellm import TARGETS  # noqa: E402
from tests.adapter_checks import SEEDS, TWO_CALLS, assert_registered, calls, case_of, kinds, run, seed  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402

BUILDER, CLIENT = TARGETS
#: From 1.109 litellm's client raises MidStreamFallbackError on a stream that ends without a
#: finish reason; before, it handed the stream's chunks on.
RAISES_ON_CUT = tuple(int(p) for p in metadata.version("litellm").split(".")[:2]) >= (1, 109)
#: The builder answers finish_reason 'stop' for a stream that gave none, so a cut stream's
#: call looks finished.  Raising on a stream with nothing finished in it loses nothing.
CUT = [] if RAISES_ON_CUT else ["incomplete_handed_on"]
KNOWN = {(BUILDER.name, "closing-brace-is-not-completion"): ["incomplete_handed_on"],
         (BUILDER.name, "disconnect-mid-arguments"): ["incomplete_handed_on"],
         (CLIENT.name, "closing-brace-is-not-completion"): CUT,
         (CLIENT.name, "disconnect-mid-arguments"): CUT}


def test_registered_with_the_installed_version():
    for target in TARGETS:
        assert_registered(target, metadata.version("litellm"))
    assert (BUILDER.level, CLIENT.level) == ("events", "bytes")


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_the_two_interleaved_calls_come_out_whole(target):
    assert calls(target, seed("two-calls-interleaved")) == TWO_CALLS


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(target, name):
    assert kinds(target, seed(name)) == KNOWN.get((target.name, name), [])


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_a_call_without_an_id_is_dropped(target):
    # The builder emits a call only when it has both an id and a name.
    wire = sse(chunk(head(0, None, "f", '{"a"')), chunk(frag(0, ": 1}")), chunk(finish="tool_calls"))
    assert calls(target, case_of(wire)) == []
    assert kinds(target, case_of(wire)) == ["call_lost"]


def test_no_arguments_become_an_empty_object():
    wire = sse(chunk(head(0, "call_1", "f", "")), chunk(finish="tool_calls"))
    assert calls(BUILDER, case_of(wire)) == [(0, "call_1", "f", "{}", True)]
    assert kinds(BUILDER, case_of(wire)) == ["reserialised"]


def test_a_cut_stream_is_handed_on_by_the_builder_and_refused_by_the_client_from_1_109():
    wire = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), done=False)
    assert calls(BUILDER, case_of(wire)) == [(0, "call_1", "f", '{"a": 1}', True)]
    raised = run(CLIENT, case_of(wire)).raised
    if RAISES_ON_CUT:
        assert raised and raised.startswith("MidStreamFallbackError")
    else:
        assert raised is None
