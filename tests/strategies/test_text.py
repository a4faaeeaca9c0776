"""toolfuzz.strategies.dialects.text: a producer case, its format's text in batches, and what it expects."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis.errors import InvalidArgument

from toolfuzz.strategies.cases import PLAIN_TEXT, Planner
from toolfuzz.strategies.dialects.text import LOOKALIKES
from toolfuzz.strategies.markup import FORMATS
from toolfuzz.vocabulary import TEXT_DIALECTS, Tool


def test_each_case_is_of_one_format_and_its_batches_are_that_format_s_text():
    planner = Planner(dialects=TEXT_DIALECTS)
    seen = set()
    for seed in range(300):
        case = planner.draw(seed)
        fmt = FORMATS[case.dialect.partition(":")[2]]
        seen.add(case.dialect)
        text = b"".join(case.reads).decode()
        assert case.expected.calls and all(c.name in text for c in case.expected.calls)
        assert all(mark in text for mark in fmt.specials[:1])
        # No batch ends inside a mark its tokenizer holds as one token, special or not.
        cuts = [sum(len(r.decode()) for r in case.reads[:k]) for k in range(1, len(case.reads))]
        assert not [(cut, m) for m in fmt.atoms for at in _starts(text, m) for cut in cuts if at < cut < at + len(m)]
        for call in case.expected.calls:
            json.loads(call.arguments)  # what the model wrote is always one JSON value
        assert case.events == () and case.expected.content is not None
        # Rendering the plan again gives the same case, byte for byte: what reduction relies on.
        assert planner.render(case.plan) == case
    assert seen == set(TEXT_DIALECTS)


def _starts(text: str, mark: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(mark), text)]


def test_the_plainest_case_is_one_call_no_content_one_batch():
    case = Planner(dialect="text:hermes").render({})
    assert len(case.expected.calls) == 1 and case.expected.content == ""
    assert set(case.features) == PLAIN_TEXT and len(case.reads) == 1


def test_some_calls_pass_strings_that_spell_other_values_and_an_xml_call_writes_them_bare():
    planner = Planner(dialect="text:qwen3-coder")
    spelled = 0
    for seed in range(200):
        case = planner.draw(seed)
        text = b"".join(case.reads).decode()
        for call in case.expected.calls:
            for key, value in json.loads(call.arguments).items():
                if value in LOOKALIKES:
                    spelled += 1
                    assert f"<parameter={key}>\n{value}\n</parameter>" in text
                    assert "lookalike-strings" in case.features
    assert spelled > 10


def test_the_content_expected_is_what_the_model_wrote_around_the_calls():
    planner = Planner(dialect="text:hermes")
    drawn = [planner.draw(seed) for seed in range(200)]
    assert sum("content-between" in c.features for c in drawn) > 5
    for case in drawn:
        outside = re.sub(r"<tool_call>.*?</tool_call>", "", b"".join(case.reads).decode(), flags=re.S)
        assert outside.split() == case.expected.content.split()


def test_a_format_that_cannot_write_any_tool_name_is_one_clear_error():
    with pytest.raises(InvalidArgument, match=r"text:pythonic: no tool has a name the format can write \(get-x\)"):
        Planner(tools=[Tool("get-x", {"type": "object"})], dialect="text:pythonic")
    with pytest.raises(InvalidArgument, match="has no call-shape profiles"):
        Planner(profiles=["openai"], dialect="text:hermes")
