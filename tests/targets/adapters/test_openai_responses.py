"""The openai Responses adapters: the SDK's ResponseStreamState and its client, fed hand-made Responses streams.

openai is an optional extra (``pip install -e ".[openai]"``); without it this module is skipped (under CI it fails).
The expected outcomes are written by hand from the stream (the canonical call: index = output_index,
id = call_id, the exact concatenation of the argument deltas, complete after response.completed).
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

import pytest

from tests.adapter_checks import require, require_adapter

require("openai")
require("httpx2")
# The Responses API came in openai 1.66.0: toolfuzz verify runs this module on releases before it too.
require_adapter("openai-responses-state")

from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import COMPLETE, INCOMPLETE, Call, Case, Outcome  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets import adapters  # noqa: E402
from toolfuzz.targets.adapters.openai_responses import TARGETS  # noqa: E402
from tests.streams import one_cut  # noqa: E402
from tests.paths import ROOT

BY_NAME = {t.name: t for t in TARGETS}
STATE, CLIENT = BY_NAME["openai-responses-state"], BY_NAME["openai-responses-client"]
BOTH = pytest.mark.parametrize("target", [STATE, CLIENT], ids=lambda t: t.name)
SEEDS = ROOT / "findings" / "seed-responses"


# -- builders -----------------------------------------------------------------

def _response(status: str, output: list[dict[str, Any]] | None) -> dict[str, Any]:
    doc = {"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "x",
           "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    if output is not None:
        doc["output"] = output
    return doc


def item(n: int, arguments: str = "", status: str = "in_progress", name: str = "f") -> dict[str, Any]:
    return {"id": f"fc_{n}", "type": "function_call", "status": status, "arguments": arguments,
            "call_id": f"call_{n}", "name": name}


class Stream:
    """Events numbered as the server numbers them (sequence_number 0, 1, 2, ...)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = [{"type": "response.created", "response": _response("in_progress", [])}]

    def add(self, **event: Any) -> Stream:
        self.events.append(event)
        return self

    def call(self, at: int, n: int, *fragments: str, name: str = "f", done: bool = True) -> Stream:
        self.add(type="response.output_item.added", output_index=at, item=item(n, name=name))
        for f in fragments:
            self.delta(at, n, f)
        if done:
            self.done(at, n, "".join(fragments), name)
        return self

    def delta(self, at: int, n: int, fragment: str) -> Stream:
        return self.add(type="response.function_call_arguments.delta", item_id=f"fc_{n}", output_index=at,
                        delta=fragment)

    def done(self, at: int, n: int, arguments: str, name: str = "f") -> Stream:
        self.add(type="response.function_call_arguments.done", item_id=f"fc_{n}", output_index=at,
                 arguments=arguments)
        return self.add(type="response.output_item.done", output_index=at,
                        item=item(n, arguments, "completed", name))

    def completed(self, output: list[dict[str, Any]] | None) -> Stream:
        return self.add(type="response.completed", response=_response("completed", output))

    def wire(self, ascii_only: bool = False) -> bytes:
        out = []
        for n, e in enumerate(self.events):
            data = json.dumps({**e, "sequence_number": n}, ensure_ascii=ascii_only, separators=(",", ":"))
            out.append(f"event: {e['type']}\ndata: {data}\n\n")
        return "".join(out).encode("utf-8")


def call(index: int, n: int, arguments: str, status: str = COMPLETE, name: str = "f") -> Call:
    return Call(0, index, f"call_{n}", name, arguments, status)


def case_of(wire: bytes | list[bytes], *calls: Call) -> Case:
    reads = (wire,) if isinstance(wire, bytes) else tuple(wire)
    return Case(reads=reads, expected=Outcome(calls=calls), dialect="openai-responses")


def kinds(target, case) -> list[str]:
    return [d.kind for d in compare(case.expected, observe(target, case), target)]


def seen(target, case) -> list[tuple]:
    obs = observe(target, case)
    assert obs.raised is None, obs.raised
    return [(c.index, c.id, c.name, c.arguments, c.complete) for c in obs.calls]


W, R = '{"city": "Paris"}', '{"path": "/etc/hosts"}'


def two_calls() -> Stream:
    return Stream().call(0, 1, '{"city": "Pa', 'ris"}', name="get_weather").call(
        1, 2, '{"path": ', '"/etc/hosts"}', name="read_file")


# -- the documented shapes come out whole ----------------------------------------

def test_the_adapters_are_registered_with_the_installed_version():
    # On the registry's entry: builtin_targets() would import every installed library adapter.
    (adapter,) = [a for a in adapters.KNOWN if a.module == "toolfuzz.targets.adapters.openai_responses"]
    assert adapter.names == tuple(t.name for t in TARGETS) == ("openai-responses-state", "openai-responses-client")
    assert all(t.version == metadata.version("openai") and t.dialects == ("openai-responses",) for t in TARGETS)
    assert (STATE.level, CLIENT.level) == ("events", "bytes")


@BOTH
def test_two_calls_come_out_whole_with_the_call_id(target):
    stream = two_calls().completed([item(1, W, "completed", "get_weather"), item(2, R, "completed", "read_file")])
    case = case_of(stream.wire(), call(0, 1, W, name="get_weather"), call(1, 2, R, name="read_file"))
    assert kinds(target, case) == []


@BOTH
def test_a_reasoning_item_first_puts_the_call_at_output_index_1(target):
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    stream = Stream().add(type="response.output_item.added", output_index=0, item=reasoning).add(
        type="response.output_item.done", output_index=0, item=reasoning).call(1, 1, '{"a": ', "1}")
    stream.completed([reasoning, item(1, '{"a": 1}', "completed")])
    assert kinds(target, case_of(stream.wire(), call(1, 1, '{"a": 1}'))) == []


@BOTH
def test_fragments_cut_inside_strings_and_escapes_keep_the_exact_text(target):
    text = '{"q": "café \\"x\\" \\u00e9 😀"}'
    stream = Stream().call(0, 1, '{"q": "caf', 'é \\"x\\', '" \\u00', 'e9 😀"}').completed([item(1, text, "completed")])
    assert kinds(target, case_of(stream.wire(), call(0, 1, text))) == []


def test_network_reads_cut_anywhere_even_inside_a_character_change_nothing_for_the_client():
    text = '{"q": "é😀"}'
    wire = Stream().call(0, 1, text).completed([item(1, text, "completed")]).wire()
    start = wire.index("é".encode())
    for reads in list(one_cut(wire))[start - 2:start + 8]:
        assert kinds(CLIENT, case_of(reads, call(0, 1, text))) == [], [len(r) for r in reads]


# -- what the final response is made of ---------------------------------------------

@BOTH
def test_the_final_arguments_are_the_servers_copy_not_the_deltas(target):
    # get_final_response() takes each call from response.completed; deltas
    # that disagree with it never show.
    stream = Stream().call(0, 1, '{"a": 1}').completed([item(1, '{"a": 2}', "completed")])
    case = case_of(stream.wire(), call(0, 1, '{"a": 1}'))
    assert seen(target, case) == [(0, "call_1", "f", '{"a": 2}', True)]
    assert kinds(target, case) == ["arguments_differ"]


@BOTH
def test_a_completed_response_with_an_empty_output_loses_every_call(target):
    stream = two_calls().completed([])
    case = case_of(stream.wire(), call(0, 1, W, name="get_weather"), call(1, 2, R, name="read_file"))
    assert seen(target, case) == []
    assert kinds(target, case) == ["call_lost"]


@BOTH
def test_a_completed_response_without_output_falls_back_to_the_done_items(target):
    stream = two_calls().completed(None)
    case = case_of(stream.wire(), call(0, 1, W, name="get_weather"), call(1, 2, R, name="read_file"))
    assert kinds(target, case) == []


# -- endings -----------------------------------------------------------------------

def test_a_disconnect_before_response_completed_makes_the_client_raise_and_the_state_hand_on_nothing():
    stream = Stream().call(0, 1, '{"a": ', "1}", done=False)
    case = case_of(stream.wire(), call(0, 1, '{"a": 1}', INCOMPLETE))
    assert seen(STATE, case) == [(0, "call_1", "f", '{"a": 1}', False)]
    obs = observe(CLIENT, case)
    assert obs.raised == "RuntimeError: Didn't receive a `response.completed` event."


def test_the_state_hands_on_the_response_an_incomplete_stream_ended_with_not_what_came_after():
    # The SDK yields events after response.incomplete too, but the response it hands the user with that event
    # is the one the stream ended with: an item added after it is in no response a public API returns.
    stream = Stream().call(0, 1, '{"a": 1}').add(type="response.incomplete", response=_response("incomplete", None))
    stream.add(type="response.output_item.added", output_index=99, item=item(99, name="late"))
    case = case_of(stream.wire(), call(0, 1, '{"a": 1}', INCOMPLETE))
    assert seen(STATE, case) == [(0, "call_1", "f", '{"a": 1}', False)]
    assert kinds(STATE, case) == []


def test_an_error_event_is_not_raised_by_the_stream_but_no_response_completes():
    stream = Stream().call(0, 1, '{"a": 1}').add(type="error", code="server_error", message="boom", param=None)
    case = case_of(stream.wire(), call(0, 1, '{"a": 1}', INCOMPLETE))
    assert kinds(STATE, case) == []
    assert observe(CLIENT, case).raised == "RuntimeError: Didn't receive a `response.completed` event."


def test_an_error_member_in_the_data_stops_the_stream_with_api_error():
    stream = Stream().call(0, 1, '{"a": 1}').add(type="error", error={"message": "overloaded"})
    case = case_of(stream.wire(), call(0, 1, '{"a": 1}', INCOMPLETE))
    assert kinds(STATE, case) == []
    obs = observe(CLIENT, case)
    assert obs.raised == "APIError: overloaded"


# -- the dialect's seed fixtures ----------------------------------------------------

@BOTH
@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.json")))
def test_every_responses_seed_fixture(target, name):
    case = load(SEEDS / name).case
    if target is CLIENT and name == "disconnect-mid-arguments.json":
        assert observe(target, case).raised == "RuntimeError: Didn't receive a `response.completed` event."
    else:
        assert kinds(target, case) == []


def test_the_seed_fixtures_are_there():
    assert len(list(SEEDS.glob("*.json"))) >= 5
