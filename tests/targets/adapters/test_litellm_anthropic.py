"""The litellm Anthropic adapters: litellm's Messages parser alone, and litellm.completion end to end.

litellm is an optional extra; without it (or anthropic, whose test builders are reused) this module is skipped
(under CI it fails).
The streams and their expected outcomes are built as in the anthropic tests.
"""

from __future__ import annotations

import pytest

from tests.adapter_checks import require

require("litellm")
require("anthropic")

from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import INCOMPLETE  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets.adapters.litellm_anthropic import TARGETS  # noqa: E402
from tests.targets.adapters.test_anthropic_messages import (  # noqa: E402
    OVERLOADED, SEEDS, TWO_CALLS, assert_registered, block_start, block_stop, call, case_of, delta, finish, kinds,
    message_start, seen, sse, tool_block, tool_start)

BY_NAME = {t.name: t for t in TARGETS}
PARSER, CLIENT = BY_NAME["litellm-anthropic"], BY_NAME["litellm-anthropic-client"]
BOTH = pytest.mark.parametrize("target", [PARSER, CLIENT], ids=lambda t: t.name)


def test_the_adapters_are_registered_with_the_installed_version():
    assert_registered(TARGETS, "litellm")
    assert all(t.dialects == ("anthropic",) for t in TARGETS)


@BOTH
def test_two_calls_come_out_whole(target):
    case = case_of(sse(TWO_CALLS), call(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
                   call(1, "toolu_r", "read_file", '{"path": "/etc/hosts"}'))
    assert kinds(target, case) == []


@BOTH
def test_a_text_block_first_is_labelled_by_the_block_index(target):
    events = [message_start(), block_start(0, "text"), delta(0, "hi", "text_delta"), block_stop(0),
              *tool_block(1, "toolu_1", "f", '{"a": 1}'), *finish()]
    assert kinds(target, case_of(sse(events), call(1, "toolu_1", "f", '{"a": 1}'))) == []


@BOTH
def test_interleaved_blocks_pile_every_fragment_onto_the_last_started_call(target):
    # litellm sends each input_json_delta to its latest tool, whatever the delta's block index.
    events = [message_start(), tool_start(0, "toolu_a", "a"), tool_start(1, "toolu_b", "b"), delta(0, '{"x": 0}'),
              delta(1, '{"y": 1}'), block_stop(0), block_stop(1), *finish()]
    case = case_of(sse(events), call(0, "toolu_a", "a", '{"x": 0}'), call(1, "toolu_b", "b", '{"y": 1}'))
    assert seen(target, case) == [(0, "toolu_a", "a", "{}", True), (1, "toolu_b", "b", '{"x": 0}{"y": 1}', True)]
    assert kinds(target, case) == ["arguments_differ"]


def test_a_disconnect_is_handed_on_by_the_parser_and_refused_by_completion():
    # Without litellm.completion's stream wrapper, stream_chunk_builder answers finish_reason "stop".
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"n": 12')]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"n": 12', INCOMPLETE))
    assert kinds(PARSER, case) == ["incomplete_handed_on"]
    obs = observe(CLIENT, case)
    assert obs.raised and "Stream ended before a finish_reason was received" in obs.raised


@BOTH
def test_max_tokens_keeps_the_text_and_is_not_complete(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": "x'), *finish("max_tokens")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": "x', INCOMPLETE))
    assert kinds(target, case) == []


@BOTH
def test_an_error_event_raises(target):
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"a": 1}'), OVERLOADED]
    obs = observe(target, case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}', INCOMPLETE)))
    assert obs.raised and "Overloaded" in obs.raised


def test_a_block_after_message_stop_is_a_call_for_the_parser_only():
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": 1}'), *finish(), tool_start(1, "toolu_late", "g")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}'))
    assert kinds(PARSER, case) == ["phantom_call"]
    assert kinds(CLIENT, case) == []


#: Beyond agreeing: the seed's interleaved blocks, and the parser's handing on of a cut call.
SEED_KINDS = {"two-calls-interleaved.json": ["arguments_differ"]}


@BOTH
@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.json")))
def test_every_anthropic_seed_fixture(target, name):
    case = load(SEEDS / name).case
    if name == "disconnect-mid-arguments.json":
        if target is CLIENT:
            assert "Stream ended before a finish_reason was received" in observe(target, case).raised
        else:
            assert kinds(target, case) == ["incomplete_handed_on"]
    else:
        assert kinds(target, case) == SEED_KINDS.get(name, [])


def test_an_unterminated_last_event_still_stops_the_message():
    # The stream ends after message_delta's data line, before the blank line that would dispatch it.
    wire = sse([message_start(), *tool_block(0, "toolu_1", "f", "{}"), finish()[0]])[:-1]
    case = case_of(wire, call(0, "toolu_1", "f", "{}", INCOMPLETE))
    assert seen(CLIENT, case) == [(0, "toolu_1", "f", "{}", True)]
    assert kinds(CLIENT, case) == ["incomplete_handed_on"]
