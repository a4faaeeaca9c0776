"""The langchain-anthropic adapters: events converted to AIMessageChunks and summed, alone and end to end.

langchain-anthropic is an optional extra (``pip install -e ".[langchain-anthropic]"``); without it this
module is skipped (under CI it fails).  The streams and their expected outcomes are built as in the anthropic tests.
"""

from __future__ import annotations

import pytest

from tests.adapter_checks import require

require("langchain_anthropic")

from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import INCOMPLETE  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets.adapters.langchain_anthropic import TARGETS  # noqa: E402
from tests.targets.adapters.test_anthropic_messages import (  # noqa: E402
    OVERLOADED, PING, SEEDS, TWO_CALLS, assert_registered, block_start, block_stop, call, case_of, delta, finish, kinds, message_start, seen,
    sse, tool_block, tool_start)

BY_NAME = {t.name: t for t in TARGETS}
CONVERSION, CLIENT = BY_NAME["langchain-anthropic"], BY_NAME["langchain-anthropic-client"]
BOTH = pytest.mark.parametrize("target", [CONVERSION, CLIENT], ids=lambda t: t.name)


def test_the_adapters_are_registered_with_the_installed_version():
    assert_registered(TARGETS, "langchain-anthropic")
    assert all(t.dialects == ("anthropic",) for t in TARGETS)
    assert (CONVERSION.level, CLIENT.level) == ("events", "bytes")


@BOTH
def test_two_calls_come_out_whole_with_the_exact_argument_text(target):
    case = case_of(sse(TWO_CALLS), call(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
                   call(1, "toolu_r", "read_file", '{"path": "/etc/hosts"}'))
    assert kinds(target, case) == []


@BOTH
def test_other_blocks_pings_escapes_and_an_empty_first_fragment_change_nothing(target):
    # The argument text is kept as sent: \u00e9 and 1.50 stay as they are.
    events = [message_start(), PING, block_start(0, "thinking"), delta(0, "hmm", "thinking_delta"), block_stop(0),
              block_start(1, "text"), delta(1, "Looking.", "text_delta"), block_stop(1),
              tool_start(2, "toolu_1", "f"), delta(2, ""), PING, delta(2, '{"q":"\\u00e9 \\"'),
              delta(2, 'x", "n": 1.50}'), block_stop(2), *finish()]
    assert kinds(target, case_of(sse(events), call(2, "toolu_1", "f", '{"q":"\\u00e9 \\"x", "n": 1.50}'))) == []


@BOTH
def test_a_disconnect_leaves_the_partial_text_not_complete(target):
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"n": 12')]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"n": 12', INCOMPLETE))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"n": 12', False)]
    assert kinds(target, case) == []


def test_an_error_event_ends_the_conversion_and_makes_the_chat_model_raise():
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"a": 1}'), OVERLOADED, block_stop(0),
              *finish()]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}', INCOMPLETE))
    assert kinds(CONVERSION, case) == []
    obs = observe(CLIENT, case)
    assert obs.raised and "overloaded_error" in obs.raised


@BOTH
def test_a_character_split_between_its_utf16_halves_keeps_both_halves(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"e": "\ud83d', '\ude00"}'), *finish()]
    case = case_of(sse(events, ascii_only=True), call(0, "toolu_1", "f", '{"e": "😀"}'))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"e": "\ud83d\ude00"}', True)]
    assert kinds(target, case) == ["arguments_differ"]


@BOTH
@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.json")))
def test_every_anthropic_seed_fixture_agrees(target, name):
    # The argument text is kept as sent, so even the disconnect's partial text agrees.
    assert kinds(target, load(SEEDS / name).case) == []


@BOTH
def test_a_block_started_after_message_stop_is_handed_on(target):
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": 1}'), *finish(), tool_start(1, "toolu_late", "g")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}'))
    assert seen(target, case) == [(0, "toolu_1", "f", '{"a": 1}', True), (1, "toolu_late", "g", "", True)]


def test_a_stream_cut_before_any_event_makes_the_chat_model_raise():
    obs = observe(CLIENT, case_of(b"e"))
    assert obs.raised == "ValueError: No generation chunks were returned"
