"""The anthropic adapters: the SDK's accumulator and its client, fed hand-made Messages streams.

anthropic is an optional extra (``pip install -e ".[anthropic]"``); without it this module is skipped
(under CI it fails).
The expected outcomes are written by hand from the stream (the canonical call: the content block
index, the tool_use id, the exact concatenation of the partial_json fragments, complete once the
message stops with ``tool_use``).  The builders here are reused by the langchain-anthropic tests.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

import pytest

from tests.adapter_checks import require

require("anthropic")
require("httpx2")

from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import COMPLETE, INCOMPLETE, Call, Case, Outcome  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets import adapters  # noqa: E402
from toolfuzz.targets.adapters.anthropic_messages import TARGETS  # noqa: E402
from tests.streams import one_cut  # noqa: E402
from tests.paths import ROOT

BY_NAME = {t.name: t for t in TARGETS}
ACC, CLIENT = BY_NAME["anthropic-accumulator"], BY_NAME["anthropic-client"]
BOTH = pytest.mark.parametrize("target", [ACC, CLIENT], ids=lambda t: t.name)
SEEDS = ROOT / "findings" / "seed-anthropic"


# -- builders -----------------------------------------------------------------

def message_start() -> dict[str, Any]:
    return {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "x", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}


def tool_start(index: int, tool_id: str, name: str) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}}}


def block_start(index: int, kind: str) -> dict[str, Any]:
    block = {"type": "text", "text": ""} if kind == "text" else {"type": "thinking", "thinking": "", "signature": ""}
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, fragment: str, kind: str = "input_json_delta") -> dict[str, Any]:
    field = {"input_json_delta": "partial_json", "text_delta": "text", "thinking_delta": "thinking",
             "signature_delta": "signature"}[kind]
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: fragment}}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def finish(reason: str = "tool_use") -> list[dict[str, Any]]:
    return [{"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
             "usage": {"output_tokens": 9}},
            {"type": "message_stop"}]


PING = {"type": "ping"}
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def tool_block(index: int, tool_id: str, name: str, *fragments: str) -> list[dict[str, Any]]:
    return [tool_start(index, tool_id, name), *(delta(index, f) for f in fragments), block_stop(index)]


def sse(events: list[dict[str, Any]], named: bool = True, ascii_only: bool = False) -> bytes:
    """Frame events as Anthropic does: an ``event:`` line naming the type, then the data line."""
    out = []
    for e in events:
        data = json.dumps(e, ensure_ascii=ascii_only, separators=(",", ":"))
        out.append((f"event: {e['type']}\n" if named else "") + f"data: {data}\n\n")
    return "".join(out).encode("utf-8")


def call(index: int, tool_id: str, name: str, arguments: str, status: str = COMPLETE) -> Call:
    return Call(0, index, tool_id, name, arguments, status)


def case_of(wire: bytes | list[bytes], *calls: Call, error: Any = None) -> Case:
    reads = (wire,) if isinstance(wire, bytes) else tuple(wire)
    return Case(reads=reads, expected=Outcome(calls=calls, error=error), dialect="anthropic")


def assert_registered(targets, distribution: str) -> None:
    """The targets' module is in the adapter registry under their names, with the installed version.

    Checked on the registry's entry rather than through builtin_targets(), which would import every
    installed library adapter."""
    module = targets[0].fn.__module__
    (adapter,) = [a for a in adapters.KNOWN if a.module == module]
    assert adapter.names == tuple(t.name for t in targets) and distribution in adapter.distributions
    assert all(t.version == metadata.version(distribution) for t in targets)


def kinds(target, case) -> list[str]:
    return [d.kind for d in compare(case.expected, observe(target, case), target)]


def seen(target, case) -> list[tuple]:
    obs = observe(target, case)
    assert obs.raised is None, obs.raised
    return [(c.index, c.id, c.name, c.arguments, c.complete) for c in obs.calls]


# -- the documented shapes come out whole ----------------------------------------

TWO_CALLS = [message_start(),
             *tool_block(0, "toolu_w", "get_weather", '{"city": "Pa', 'ris"}'),
             *tool_block(1, "toolu_r", "read_file", '{"path": ', '"/etc/hosts"}'),
             *finish()]


def test_the_adapters_are_registered_with_the_installed_version():
    assert_registered(TARGETS, "anthropic")
    assert all(t.dialects == ("anthropic",) for t in TARGETS)
    assert (ACC.level, CLIENT.level) == ("events", "bytes")


@BOTH
def test_two_calls_come_out_whole_from_the_final_message(target):
    case = case_of(sse(TWO_CALLS), call(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
                   call(1, "toolu_r", "read_file", '{"path": "/etc/hosts"}'))
    assert kinds(target, case) == []


@BOTH
def test_text_and_thinking_blocks_first_keep_the_block_index(target):
    events = [message_start(), block_start(0, "thinking"), delta(0, "hmm", "thinking_delta"),
              delta(0, "sig", "signature_delta"), block_stop(0),
              block_start(1, "text"), delta(1, "Let me look.", "text_delta"), block_stop(1),
              *tool_block(2, "toolu_1", "f", '{"a": 1}'), *finish()]
    case = case_of(sse(events), call(2, "toolu_1", "f", '{"a": 1}'))
    assert kinds(target, case) == []


@BOTH
def test_pings_and_an_empty_first_fragment_change_nothing(target):
    events = [message_start(), PING, tool_start(0, "toolu_1", "f"), delta(0, ""), PING,
              delta(0, '{"a": '), PING, delta(0, "1}"), block_stop(0), *finish()]
    assert kinds(target, case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}'))) == []


@BOTH
def test_a_fragment_cut_inside_a_string_and_its_escapes(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"q": "caf', 'é \\"x\\" \\\\', 'n 😀"}'), *finish()]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"q": "café \\"x\\" \\\\n 😀"}'))
    assert kinds(target, case) == []


def test_network_reads_cut_anywhere_even_inside_a_character_change_nothing_for_the_client():
    wire = sse([message_start(), *tool_block(0, "toolu_1", "f", '{"q": "é😀"}'), *finish()])
    expected = call(0, "toolu_1", "f", '{"q": "é😀"}')
    start = wire.index("é".encode())
    for reads in list(one_cut(wire))[start - 2:start + 8]:
        assert kinds(CLIENT, case_of(reads, expected)) == [], [len(r) for r in reads]


# -- where the SDK's parsed input is not the wire's text --------------------------

@BOTH
def test_the_input_is_a_parsed_value_so_it_is_judged_on_the_value_not_the_spelling(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"q":"\\u00e9",', '"n":1.50}'), *finish()]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"q":"\\u00e9","n":1.50}'))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"q": "é", "n": 1.5}', True)]
    assert "values" in target.reports and kinds(target, case) == []


@BOTH
def test_no_fragments_give_an_empty_object_where_the_wire_has_no_text(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", ""), *finish()]
    assert seen(target, case_of(sse(events), call(0, "toolu_1", "f", ""))) == [(0, "toolu_1", "f", "{}", True)]


@BOTH
def test_text_after_the_first_json_value_is_dropped_and_the_call_handed_on(target):
    # jiter's partial mode stops at the end of the first value, so two objects
    # in one call (or a stray brace) become the first object, complete.
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": 1}', ' {"b": 2}'), *finish()]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1} {"b": 2}', "invalid_json"))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"a": 1}', True)]
    assert kinds(target, case) == ["arguments_differ"]


@BOTH
def test_a_character_split_between_its_utf16_halves_makes_the_sdk_raise(target):
    # Each fragment then holds a lone surrogate; the SDK encodes every fragment
    # to UTF-8 before joining them, and a lone surrogate does not encode.
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"e": "\ud83d', '\ude00"}'), *finish()]
    case = case_of(sse(events, ascii_only=True), call(0, "toolu_1", "f", '{"e": "😀"}'))
    obs = observe(target, case)
    assert obs.raised and obs.raised.startswith("UnicodeEncodeError")


@BOTH
def test_white_space_before_the_json_makes_the_sdk_raise_and_lose_every_call(target):
    # Each delta re-parses the whole buffer, and a buffer of white space alone is no partial JSON.
    events = [message_start(), *tool_block(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
              *tool_block(1, "toolu_1", "f", "", " ", '{"a": 1}\n'), *finish()]
    case = case_of(sse(events), call(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
                   call(1, "toolu_1", "f", ' {"a": 1}\n'))
    obs = observe(target, case)
    assert obs.raised and obs.raised.startswith("ValueError: Unable to parse tool parameter JSON")


@BOTH
def test_blocks_started_out_of_index_order_swap_their_arguments(target):
    # content_block_start appends; the deltas for block 0 then go to the block started first.
    events = [message_start(), tool_start(1, "toolu_b", "b"), tool_start(0, "toolu_a", "a"),
              delta(0, '{"x": 0}'), block_stop(0), delta(1, '{"y": 1}'), block_stop(1), *finish()]
    case = case_of(sse(events), call(0, "toolu_a", "a", '{"x": 0}'), call(1, "toolu_b", "b", '{"y": 1}'))
    assert seen(target, case) == [(0, "toolu_b", "b", '{"x": 0}', True), (1, "toolu_a", "a", '{"y": 1}', True)]


@BOTH
def test_a_block_started_after_message_stop_is_handed_on(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": 1}'), *finish(), tool_start(1, "toolu_late", "g")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}'))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"a": 1}', True), (1, "toolu_late", "g", "{}", True)]
    assert kinds(target, case) == ["phantom_call"]


def test_a_byte_order_mark_hides_message_start_from_the_client():
    # The decoder reads the first field name as "\ufeffevent", so message_start has no event name.
    wire = "\ufeff".encode() + sse([message_start(), *tool_block(0, "toolu_1", "f", '{"a": 1}'), *finish()])
    case = case_of(wire, call(0, "toolu_1", "f", '{"a": 1}'))
    assert kinds(ACC, case) == []
    obs = observe(CLIENT, case)
    assert obs.raised and obs.raised.startswith("AssertionError")


@BOTH
def test_white_space_only_arguments_make_the_sdk_raise(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", "  "), *finish()]
    obs = observe(target, case_of(sse(events), call(0, "toolu_1", "f", "  ")))
    assert obs.raised and obs.raised.startswith("ValueError: Unable to parse tool parameter JSON")


# -- endings -----------------------------------------------------------------------

@BOTH
def test_a_disconnect_before_the_stop_leaves_a_partial_value_not_complete(target):
    # The number is cut at 12 of 123: partial parsing keeps it as 12.
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"n": 12')]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"n": 12', INCOMPLETE))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"n": 12}', False)]
    # Not complete, and its value a partial parse of the unfinished text: the partial level's to judge
    # (anthropic-input-snapshot), not a wrong argument text here.
    assert kinds(target, case) == []


@BOTH
def test_max_tokens_is_not_a_tool_use_stop(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": "x'), *finish("max_tokens")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": "x', INCOMPLETE))
    assert seen(target, case) == [(0, "toolu_1", "f", "{}", False)]


def test_an_error_event_makes_the_client_raise_and_leaves_the_accumulator_incomplete():
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"a": 1}'), OVERLOADED, block_stop(0),
              *finish()]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}', INCOMPLETE))
    assert seen(ACC, case) == [(0, "toolu_1", "f", '{"a": 1}', False)]
    assert kinds(ACC, case) == []
    obs = observe(CLIENT, case)
    assert obs.raised and obs.raised.startswith("APIStatusError") and "overloaded_error" in obs.raised


def test_without_event_lines_the_client_sees_no_message_at_all():
    # The SDK dispatches on the SSE event name and drops unnamed events, so a
    # proxy that strips `event:` lines leaves get_final_message() with nothing.
    wire = sse(TWO_CALLS, named=False)
    case = case_of(wire, call(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
                   call(1, "toolu_r", "read_file", '{"path": "/etc/hosts"}'))
    assert kinds(ACC, case) == []
    obs = observe(CLIENT, case)
    assert obs.raised and obs.raised.startswith("AssertionError")


def test_block_indices_are_positions_in_the_message_not_the_wire_index():
    # content_block_start appends whatever its index says; a server that
    # numbers its only block 1 gets it looked up at 1, past the end.
    events = [message_start(), *tool_block(1, "toolu_1", "f", '{"a": 1}'), *finish()]
    obs = observe(ACC, case_of(sse(events), call(1, "toolu_1", "f", '{"a": 1}')))
    assert obs.raised and obs.raised.startswith("IndexError")


# -- the dialect's seed fixtures ----------------------------------------------------

#: What the SDK makes of each seed fixture other than agreeing: nothing (a disconnected call's partial value is
#: the partial level's to judge).
SEED_KINDS: dict[str, list[str]] = {}


@BOTH
@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.json")))
def test_every_anthropic_seed_fixture(target, name):
    assert kinds(target, load(SEEDS / name).case) == SEED_KINDS.get(name, [])


def test_the_seed_fixtures_are_there():
    assert len(list(SEEDS.glob("*.json"))) >= 5
