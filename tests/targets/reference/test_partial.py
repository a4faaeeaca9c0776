"""The reference partial parser: what it shows of a JSON text still arriving, and that it keeps every rule."""

import json

import pytest
from hypothesis import given, strategies as st

from toolfuzz.judge.compare_partial import compare_partial
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.judge.observation import PrefixAnswer
from toolfuzz.targets.reference.partial import parse
from toolfuzz.vocabulary import COMPLETE, Call, Outcome

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(), lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


@pytest.mark.parametrize("prefix,shown", [
    ("", None), ("  ", None), ("{", {}), ('{"a', {}), ('{"a"', {}), ('{"a":', {}), ('{"a": "', {"a": ""}),
    ('{"a": "x\\', {"a": "x"}), ('{"a": "x\\u00', {"a": "x"}), ('{"a": "x\\u00e9', {"a": "xé"}),
    ('{"a": "\\ud83d', {"a": ""}), ('{"a": "\\ud83d\\ude00', {"a": "😀"}),
    ('{"a": 1', {}), ('{"a": 1,', {"a": 1}), ('{"a": -0.0}', {"a": -0.0}), ('{"a": tr', {}), ('{"a": true', {"a": True}),
    ('{"a": [1, {"b": [', {"a": [1, {"b": []}]}),
])
def test_it_shows_what_the_prefix_settles_and_nothing_more(prefix, shown):
    assert parse(prefix) == shown


def test_a_text_that_is_no_prefix_of_json_raises():
    for text in ('{"a" 1', "{]", '{"a": x', "[1 2"):
        with pytest.raises(ValueError):
            parse(text)


@given(st.dictionaries(st.text(max_size=6), JSON, max_size=5), st.booleans())
def test_it_keeps_every_rule_at_every_prefix(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    judged = texts_of(Outcome((Call(0, 0, "c", "f", text, COMPLETE),)))
    if not judged:
        return  # a repeated key (two keys equal after decoding): not judged, by design
    answers = [PrefixAnswer(0, n, parse(text[:n])) for n in range(1, len(text) + 1)]
    assert compare_partial(judged, answers) == []
