"""The vLLM adapter: its tool parsers as its chat server drives them, on texts written in each format.

vLLM needs torch and pins a GPU stack, so this runs in its own environment (.venv-vllm under .ci/run, with a
CPU torch; see test_vllm_venv.py).
"""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

require("toolfuzz.targets.adapters.vllm")

from toolfuzz.targets.adapters.vllm import PARSERS, TARGETS, StandInTokenizer  # noqa: E402
from tests import producer_cases  # noqa: E402
from tests.adapter_checks import assert_registered  # noqa: E402
from tests.producer_cases import CALLS, case  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.strategies.markup import Written  # noqa: E402
from toolfuzz.targets import adapters  # noqa: E402
from toolfuzz.vocabulary import TEXT_FORMATS, TEXT_SPECIALS, Case  # noqa: E402

BY_FORMAT = {t.extra["format"]: t for t in TARGETS}


def answer(fmt: str, c: Case) -> dict:
    return producer_cases.answer(BY_FORMAT[fmt], c)


def kinds(fmt: str, c: Case) -> list[str]:
    return producer_cases.kinds(BY_FORMAT[fmt], c)


def test_every_format_but_two_has_a_target_registered_with_the_installed_version():
    assert set(BY_FORMAT) == set(PARSERS) == set(TEXT_FORMATS) - {"internlm", "cohere-command4"}
    (entry,) = [a for a in adapters.KNOWN if a.environment == "vllm"]
    assert set(entry.names) == {t.name for t in TARGETS}
    for target in TARGETS:
        assert_registered(target, metadata.version("vllm"))
        assert target.level == "producer" and target.dialects == (f"text:{target.extra['format']}",)


def test_the_stand_in_tokenizer_gives_each_mark_its_id_and_decodes_a_batch_back():
    tokenizer = StandInTokenizer(TEXT_SPECIALS["hermes"])
    text = 'Hi <tool_call>\n{"a": 1}</tool_call>'
    ids = tokenizer.ids(text)
    assert tokenizer.decode(ids) == text
    assert ids.count(tokenizer.get_vocab()["<tool_call>"]) == 1 and set(tokenizer.get_vocab()) == {
        "<tool_call>", "</tool_call>"}
    assert tokenizer.decode(ids, skip_special_tokens=True) == 'Hi \n{"a": 1}'
    again = tokenizer.ids(text)
    tokenizer.forget()
    assert again == ids and tokenizer.ids(text) == ids  # the same text, the same ids, before and after


@pytest.mark.parametrize("fmt", sorted(PARSERS))
def test_each_parser_reads_the_plain_rendering_of_its_format_back_exactly(fmt):
    producer_cases.assert_reads_the_plain_rendering_back(BY_FORMAT[fmt], fmt)


@pytest.mark.parametrize("fmt", ["hermes", "llama3", "kimi-k2", "apertus"])
def test_a_parser_that_streams_a_token_at_a_time_right_is_judged_right(fmt):
    assert kinds(fmt, case(fmt, CALLS, before="Let me look.", batches="tokens")) == []


def test_the_streamed_deltas_are_what_the_server_sends_kimi_with_its_own_ids():
    got = answer("kimi-k2", case("kimi-k2", CALLS, batches="tokens"))
    named = [d for d in got["deltas"] if "name" in d["function"]]
    assert [(d["index"], d["id"], d["function"]["name"]) for d in named] == [
        (0, "functions.get_weather:0", "get_weather"), (1, "functions.search:1", "search")]
    assert all("id" not in d for d in got["deltas"] if d not in named)
    hermes = answer("hermes", case("hermes", CALLS, batches="tokens"))
    ids = [d["id"] for d in hermes["deltas"] if "id" in d]
    assert len(ids) == 2 and len(set(ids)) == 2 and all(i.startswith("chatcmpl-tool-") for i in ids)


def test_deepseek_v3_streams_nothing_of_a_text_that_comes_in_one_batch():
    # Its streaming parser waits for the call's begin token in one step and its end in a later one.
    assert kinds("deepseek-v3", case("deepseek-v3", CALLS[:1])) == ["call_lost"]
    assert kinds("deepseek-v3", case("deepseek-v3", CALLS[:1], batches="tokens")) == []


def test_deepseek_v31_never_sends_the_closing_brace_when_it_shares_a_batch():
    assert kinds("deepseek-v31", case("deepseek-v31", CALLS[:1], batches=4)) == ["arguments_invalid"]
    assert kinds("deepseek-v31", case("deepseek-v31", CALLS[:1], batches="tokens")) == []


def test_pythonic_reads_calls_only_at_the_start_of_the_text():
    # vLLM's parser matches its pattern from the first character (a TODO in its source says so).
    assert kinds("pythonic", case("pythonic", CALLS[:1], batches="tokens")) == []
    assert kinds("pythonic", case("pythonic", CALLS[:1], before="Sure.", batches="tokens"))[0] == "call_lost"


def test_apertus_streams_half_an_escaped_surrogate_pair_which_ends_the_servers_stream():
    # Its streamed arguments are re-encoded from a partial parse: a pair cut between its halves sends the first
    # half alone, which the server cannot write as JSON (the stream then ends with an error event).
    emoji = Written("search", {"query": "😀"}, '{"query": "\\ud83d\\ude00"}')
    seen = observe(BY_FORMAT["apertus"], case("apertus", (emoji,), batches="tokens"), timeout=60)
    assert seen.raised.startswith("PydanticSerializationError") and "surrogates not allowed" in seen.raised
    assert kinds("apertus", case("apertus", (emoji,))) == []  # in one batch the pair stays whole
