"""The pydantic-ai Anthropic adapter: AnthropicModel.request_stream end to end over hand-made Messages streams.

pydantic-ai-slim and anthropic are optional extras; without them this module is skipped (under CI it fails).
The streams and their expected outcomes are built as in the anthropic tests.
"""

from __future__ import annotations

import pytest

from tests.adapter_checks import require, require_adapter

require("pydantic_ai")
# Written for pydantic-ai's 1.0 API: toolfuzz verify runs this module on 0.x releases too.
require_adapter("pydantic-ai-anthropic")
require("anthropic")

from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import INCOMPLETE  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets.adapters.pydantic_ai_anthropic import TARGETS  # noqa: E402
from tests.targets.adapters.test_anthropic_messages import (  # noqa: E402
    OVERLOADED, PING, SEEDS, TWO_CALLS, assert_registered, block_start, block_stop, call, case_of, delta, finish, kinds, message_start, seen,
    sse, tool_block, tool_start)

(MODEL,) = TARGETS


def test_registered_with_the_installed_version():
    assert_registered(TARGETS, "pydantic-ai-slim")
    assert MODEL.dialects == ("anthropic",)


def test_two_calls_come_out_whole_with_the_exact_argument_text():
    case = case_of(sse(TWO_CALLS), call(0, "toolu_w", "get_weather", '{"city": "Paris"}'),
                   call(1, "toolu_r", "read_file", '{"path": "/etc/hosts"}'))
    assert kinds(MODEL, case) == []


def test_other_blocks_pings_and_an_empty_first_fragment_keep_the_block_index():
    events = [message_start(), PING, block_start(0, "thinking"), delta(0, "hmm", "thinking_delta"),
              delta(0, "sig", "signature_delta"), block_stop(0), block_start(1, "text"),
              delta(1, "Looking.", "text_delta"), block_stop(1), tool_start(2, "toolu_1", "f"), delta(2, ""), PING,
              delta(2, '{"q":"\\u00e9",'), delta(2, ' "n": 1.50}'), block_stop(2), *finish()]
    assert kinds(MODEL, case_of(sse(events), call(2, "toolu_1", "f", '{"q":"\\u00e9", "n": 1.50}'))) == []


def test_a_disconnect_leaves_the_partial_text_not_complete():
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"n": 12')]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"n": 12', INCOMPLETE))
    assert seen(MODEL, case) == [(0, "toolu_1", "f", '{"n": 12', False)]


def test_max_tokens_is_not_complete():
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": "x'), *finish("max_tokens")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": "x', INCOMPLETE))
    assert seen(MODEL, case) == [(0, "toolu_1", "f", '{"a": "x', False)]


def test_an_error_event_raises():
    events = [message_start(), tool_start(0, "toolu_1", "f"), delta(0, '{"a": 1}'), OVERLOADED]
    obs = observe(MODEL, case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}', INCOMPLETE)))
    assert obs.raised and "overloaded" in obs.raised.lower()


@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.json")))
def test_every_anthropic_seed_fixture_agrees(name):
    assert kinds(MODEL, load(SEEDS / name).case) == []


def test_a_block_started_after_message_stop_is_handed_on():
    events = [message_start(), *tool_block(0, "toolu_1", "f", '{"a": 1}'), *finish(), tool_start(1, "toolu_late", "g")]
    case = case_of(sse(events), call(0, "toolu_1", "f", '{"a": 1}'))
    assert seen(MODEL, case) == [(0, "toolu_1", "f", '{"a": 1}', True), (1, "toolu_late", "g", "", True)]


def test_a_stream_cut_before_any_event_raises():
    obs = observe(MODEL, case_of(b"e"))
    assert obs.raised and obs.raised.startswith("UnexpectedModelBehavior")
