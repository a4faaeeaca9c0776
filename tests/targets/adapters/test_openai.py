"""The openai adapters: the SDK's own assembler, fed the seed fixtures and a few hand-made streams.

openai is an optional extra (``pip install -e ".[targets]"``); without it this module is skipped (under CI it fails).
"""

from __future__ import annotations


import pytest

from tests.adapter_checks import require

require("openai")
require("httpx2")

from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import Case  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets.adapters.openai_chat import TARGETS  # noqa: E402
from toolfuzz.targets.reference import assemble  # noqa: E402
from toolfuzz.targets.registry import builtin_targets  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
BY_NAME = {t.name: t for t in TARGETS}
STATE, CLIENT, DONE = BY_NAME["openai-stream-state"], BY_NAME["openai-client"], BY_NAME["openai-client-done-events"]


def kinds(target, case):
    return [d.kind for d in compare(case.expected, observe(target, case), target)]


def case_of(wire: bytes) -> Case:
    return Case(reads=(wire,), expected=assemble([wire]))


def sdk(payload: dict) -> dict:
    """A chunk as OpenAI sends it: the stream helper drops chunks whose ``object`` is not chat.completion.chunk."""
    return {"object": "chat.completion.chunk", **payload}


def test_the_adapters_are_registered_with_the_installed_version():
    import openai
    targets = builtin_targets()
    for t in TARGETS:
        assert targets[t.name].fn is t.fn and t.version == openai.__version__
    assert (STATE.level, CLIENT.level, DONE.level) == ("events", "bytes", "bytes")


@pytest.mark.parametrize("target", [STATE, CLIENT, DONE], ids=lambda t: t.name)
def test_the_two_interleaved_calls_come_out_whole_from_the_final_completion(target):
    case = load(SEED / "two-calls-interleaved.json").case
    obs = observe(target, case)
    got = {(c.index, c.id, c.name, c.complete) for c in obs.calls}
    assert got == {(0, "call_w1", "get_weather", True), (1, "call_r1", "read_file", True)}
    if target is DONE:
        # The stream helper fires call 0's arguments.done event as soon as call 1
        # starts, so a user acting on done events runs get_weather with '{"city": "Par'.
        assert kinds(target, case) == ["arguments_differ"]
        assert [c.arguments for c in obs.calls if c.index == 0] == ['{"city": "Par']
    else:
        assert kinds(target, case) == []


SEEDS = sorted(p.name for p in SEED.glob("*.json"))


@pytest.mark.parametrize("target", [STATE, CLIENT, DONE], ids=lambda t: t.name)
@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_fixture(target, name):
    case = load(SEED / name).case
    expected = ["arguments_differ"] if (target is DONE and name == "two-calls-interleaved.json") else []
    assert kinds(target, case) == expected


def test_a_repeated_id_is_concatenated():
    # accumulate_delta treats every string as a fragment: a server that repeats
    # the id on each fragment gives a user the id 'call_1call_1'.
    wire = sse(sdk(chunk(head(0, "call_1", "f", '{"a"'))), sdk(chunk(frag(0, ": 1}", id="call_1"))),
               sdk(chunk(finish="tool_calls")))
    assert kinds(STATE, case_of(wire)) == ["id_differs"]
    assert kinds(CLIENT, case_of(wire)) == ["id_differs"]


def test_a_repeated_name_is_concatenated():
    wire = sse(chunk(head(0, "call_1", "f", '{"a"')), chunk({"index": 0, "function": {"name": "f", "arguments": ": 1}"}}),
               chunk(finish="tool_calls"))
    obs = observe(STATE, case_of(wire))
    assert [c.name for c in obs.calls] == ["ff"]
    assert kinds(STATE, case_of(wire)) == ["name_differs"]


def test_a_fragment_without_an_index_makes_the_state_raise():
    # The SDK indexes its list of calls with the fragment's index: None is a TypeError.
    wire = sse(chunk(head(None, "call_1", "f", "{}")), chunk(finish="tool_calls"))
    obs = observe(STATE, case_of(wire))
    assert obs.raised and obs.raised.startswith("TypeError")


def test_an_error_chunk_makes_the_client_raise_and_the_state_keep_the_calls_incomplete():
    wire = sse(sdk(chunk(head(0, "call_1", "f", '{"a": 1}'))), {"error": {"message": "overloaded"}})
    case = case_of(wire)
    assert case.expected.error is not None
    assert kinds(STATE, case) == []
    obs = observe(CLIENT, case)
    assert obs.raised and obs.raised.startswith("APIError")


def test_a_disconnect_leaves_the_call_incomplete_and_no_done_event_hands_it_on():
    wire = sse(sdk(chunk(head(0, "call_1", "f", '{"a": 1}'))), done=False)
    for target in (STATE, CLIENT, DONE):
        obs = observe(target, case_of(wire))
        assert [(c.id, c.complete) for c in obs.calls] == [("call_1", False)], target.name


def test_the_stream_helper_drops_chunks_without_the_object_field():
    # ChatCompletionStream skips every chunk whose ``object`` is not
    # "chat.completion.chunk" (a guard against Azure's filter events), so a
    # server that leaves ``object`` out gives a .stream() user no completion at
    # all: get_final_completion() fails its "no chunk yet" assertion.
    wire = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), chunk(finish="tool_calls"))
    assert kinds(STATE, case_of(wire)) == []
    obs = observe(CLIENT, case_of(wire))
    assert obs.raised and obs.raised.startswith("AssertionError")
    with_object = sse(sdk(chunk(head(0, "call_1", "f", '{"a": 1}'))), sdk(chunk(finish="tool_calls")))
    assert kinds(CLIENT, case_of(with_object)) == []
