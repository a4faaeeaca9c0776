"""The sglang adapter: its tool parsers as its server drives them, on texts written in each format.

sglang pins openai 2.8, so this runs in its own environment (.venv-sglang under .ci/run; see
test_sglang_venv.py), with sglang installed without its dependencies.
"""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

# The adapter, not sglang itself: importing the package would run its __init__, which wants torch.
require("toolfuzz.targets.adapters.sglang")

from toolfuzz.targets.adapters.sglang import PARSERS, TARGETS  # noqa: E402
from tests import producer_cases  # noqa: E402
from tests.adapter_checks import assert_registered  # noqa: E402
from tests.producer_cases import CALLS, case  # noqa: E402
from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.strategies.markup import Written  # noqa: E402
from toolfuzz.vocabulary import TEXT_FORMATS, Case  # noqa: E402

BY_FORMAT = {t.extra["format"]: t for t in TARGETS}


def answer(fmt: str, c: Case) -> dict:
    return producer_cases.answer(BY_FORMAT[fmt], c)


def kinds(fmt: str, c: Case) -> list[str]:
    return producer_cases.kinds(BY_FORMAT[fmt], c)


def test_every_format_has_a_target_registered_with_the_installed_version():
    assert set(BY_FORMAT) == set(TEXT_FORMATS) == set(PARSERS)
    for target in TARGETS:
        assert_registered(target, metadata.version("sglang"))
        assert target.level == "producer" and target.dialects == (f"text:{target.extra['format']}",)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_each_parser_reads_the_plain_rendering_of_its_format_back_exactly(fmt):
    producer_cases.assert_reads_the_plain_rendering_back(BY_FORMAT[fmt], fmt)


def test_the_streamed_deltas_are_what_the_server_sends_an_id_and_a_name_once_a_call():
    got = answer("kimi-k2", case("kimi-k2", CALLS, batches="tokens"))
    named = [d for d in got["deltas"] if "name" in d["function"]]
    # Kimi K2's ids are the server's own functions.<name>:<index>; every other format gets call_<n> in order.
    assert [(d["index"], d["id"], d["function"]["name"]) for d in named] == [
        (0, "functions.get_weather:0", "get_weather"), (1, "functions.search:1", "search")]
    assert all("id" not in d for d in got["deltas"] if d not in named)
    assert kinds("kimi-k2", case("kimi-k2", CALLS, batches="tokens")) == []
    # Kimi K3's are <name>:<index>, without the prefix (serving_chat._process_tool_call_id).
    k3 = answer("kimi-k3", case("kimi-k3", CALLS, batches="tokens"))
    assert [d["id"] for d in k3["deltas"] if "name" in d["function"]] == ["get_weather:0", "search:1"]
    assert [d["id"] for d in answer("hermes", case("hermes", CALLS, batches="tokens"))["deltas"]
            if "name" in d["function"]] == ["call_0", "call_1"]


def test_a_plain_call_whose_text_comes_in_one_batch_is_handed_on_without_its_arguments():
    # The base JSON detector makes one step a batch: the name; the arguments of the same batch are never
    # recorded, so the server's end-of-stream check cannot send them either (docs/producers.md).
    assert kinds("hermes", case("hermes", CALLS[:1])) == ["arguments_invalid"]
    assert kinds("hermes", case("hermes", CALLS[:1], batches="tokens")) == []


def test_a_negative_number_loses_a_pythonic_call_in_both_parses():
    negative = Written("get_weather", {"city": "Paris", "days": -3}, '{"city": "Paris", "days": -3}')
    assert kinds("pythonic", case("pythonic", (negative,), batches="tokens")) == ["call_lost", "whole_differs"]
    assert kinds("pythonic", case("pythonic", CALLS[:1], batches="tokens")) == []


def test_cohere_streams_the_tools_position_as_the_index_so_one_tool_twice_is_index_0_twice():
    assert kinds("cohere-command4", case("cohere-command4", (CALLS[1],), batches="tokens")) == ["index_differs"]
    twice = case("cohere-command4", (CALLS[0], CALLS[0]), batches="tokens")
    target = BY_FORMAT["cohere-command4"]
    (found,) = compare(twice.expected, observe(target, twice, timeout=30), target)
    assert found.kind == "index_differs" and found.detail.startswith("indexes [0, 0] for 2 calls"), found


def test_text_after_the_calls_is_content_the_whole_text_parse_of_hermes_drops():
    assert kinds("hermes", case("hermes", CALLS[:1], before="Let me check.", after="Done.", batches="tokens")) == [
        "whole_differs"]
