"""The sglang adapter: its tool parsers as its server drives them, on texts written in each format.

sglang pins openai 2.8, so this runs in its own environment (.venv-sglang under .ci/run; see
test_sglang_venv.py), with sglang installed without its dependencies.
"""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from tests.adapter_checks import require

# The adapter, not sglang itself: importing the package would run its __init__, which wants torch.
require("toolfuzz.targets.adapters.sglang")

from toolfuzz.targets.adapters.sglang import PARSERS, TARGETS  # noqa: E402
from tests.adapter_checks import assert_registered  # noqa: E402
from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.judge.compare_producer import same_value  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.strategies.markup import FORMATS, Written  # noqa: E402
from toolfuzz.vocabulary import COMPLETE, TEXT_FORMATS, Call, Case, Outcome, Tool, text_tokens  # noqa: E402

BY_FORMAT = {t.extra["format"]: t for t in TARGETS}
TOOLS = (Tool("get_weather", {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                              "required": ["city"]}),
         Tool("search", {"type": "object", "properties": {"query": {"type": "string"}, "exact": {"type": "boolean"},
                                                         "tags": {"type": "array", "items": {"type": "string"}},
                                                         "filters": {"type": "object"}}}))
#: Plain calls every format writes (no negative number: pythonic's whole parse loses those, a finding).
CALLS = (Written("get_weather", {"city": "Paris", "days": 3}, '{"city": "Paris", "days": 3}'),
         Written("search", {"query": "cafés near me", "exact": True, "tags": ["a", "b"], "filters": {"open": None}},
                 '{"query": "cafés near me", "exact": true, "tags": ["a", "b"], "filters": {"open": null}}'))


def case(fmt: str, calls=CALLS, before: str = "", after: str = "", batches: str = "one") -> Case:
    """``calls`` written in ``fmt`` and cut into one batch, or (``"tokens"``) a token each."""
    text = FORMATS[fmt].render(calls, before, [], after)
    pieces = [text] if batches == "one" else text_tokens(text, FORMATS[fmt].specials)
    expected = tuple(Call(0, k, None, c.name, json.dumps(c.value), COMPLETE) for k, c in enumerate(calls))
    return Case(reads=tuple(p.encode() for p in pieces), expected=Outcome(expected, None, FORMATS[fmt].joiner.join(
        p for p in (before, after) if p)), tools=TOOLS, dialect=f"text:{fmt}", events=())


def answer(fmt: str, c: Case) -> dict:
    target = BY_FORMAT[fmt]
    return target.fn([r.decode() for r in c.reads], tools=c.tools, limits=c.limits)


def kinds(fmt: str, c: Case) -> list[str]:
    target = BY_FORMAT[fmt]
    seen = observe(target, c, timeout=30)
    assert seen.raised is None, seen.raised
    return [d.kind for d in compare(c.expected, seen, target)]


def test_every_format_has_a_target_registered_with_the_installed_version():
    assert set(BY_FORMAT) == set(TEXT_FORMATS) == set(PARSERS)
    for target in TARGETS:
        assert_registered(target, metadata.version("sglang"))
        assert target.level == "producer" and target.dialects == (f"text:{target.extra['format']}",)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_each_parser_reads_the_plain_rendering_of_its_format_back_exactly(fmt):
    # The evidence that each rendering is the format the parser reads: its whole-text parse, which the server
    # hands on for a response it does not stream, gives back every call written, value for value.
    for calls in (CALLS[:1], CALLS, (CALLS[0], CALLS[0])):
        got = answer(fmt, case(fmt, calls))["whole"]
        assert [c["name"] for c in got["calls"]] == [c.name for c in calls], (fmt, got)
        assert all(same_value(json.loads(g["arguments"]), w.value) for g, w in zip(got["calls"], calls)), (fmt, got)
        assert got["content"].strip() == "", (fmt, got)


def test_the_streamed_deltas_are_what_the_server_sends_an_id_and_a_name_once_a_call():
    got = answer("kimi-k2", case("kimi-k2", CALLS, batches="tokens"))
    named = [d for d in got["deltas"] if "name" in d["function"]]
    # Kimi K2's ids are the server's own functions.<name>:<index>; every other format gets call_<n> in order.
    assert [(d["index"], d["id"], d["function"]["name"]) for d in named] == [
        (0, "functions.get_weather:0", "get_weather"), (1, "functions.search:1", "search")]
    assert all("id" not in d for d in got["deltas"] if d not in named)
    assert kinds("kimi-k2", case("kimi-k2", CALLS, batches="tokens")) == []


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
