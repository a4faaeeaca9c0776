"""Which prefixes of an argument text the partial level hands a parser, and the span tree it judges them by."""

import json

from hypothesis import given, strategies as st

from toolfuzz.judge.prefixes import MAX_PREFIXES, PARSE_BUDGET, prefixes_of, read_tree, texts_of
from toolfuzz.vocabulary import COMPLETE, INCOMPLETE, INVALID_JSON, SCHEMA_INVALID, Call, Outcome

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(), lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


@given(st.dictionaries(st.text(max_size=6), JSON, max_size=5), st.booleans(), st.booleans())
def test_every_node_spans_exactly_the_text_of_its_value(value, ascii_only, spaced):
    text = json.dumps(value, ensure_ascii=ascii_only, indent=2 if spaced else None)
    tree = read_tree(text)
    assert tree is not None and tree.value == json.loads(text)

    def walk(node):
        assert json.loads(text[node.start:node.end]) == node.value
        for key, start, end in node.keys:
            assert json.loads(text[start:end]) == key
        for child in node.children:
            walk(child)

    walk(tree)


def test_a_text_with_a_repeated_key_or_that_is_not_json_has_no_tree():
    assert read_tree('{"a": 1, "a": 2}') is None
    assert read_tree('{"a": 1') is None
    assert read_tree('{"a": 1} x') is None


def test_the_prefixes_hold_every_cut_and_every_hard_place_of_the_grammar():
    text = '{"key": "a\\\\b\\u00e9\\ud83d\\ude00", "n": -1.5e3, "t": true}'
    got = set(prefixes_of(text, (3, 11)))
    assert {3, 11, len(text)} <= got
    at = text.index
    assert at('"key"') + 2 in got  # inside a key
    assert at("\\\\") + 1 in got  # right after a backslash
    assert {at("\\u00e9") + k for k in (2, 3, 4, 5)} <= got  # inside \u00e9
    assert at("\\ude00") in got  # between the two halves of a pair
    assert {at("-1.5e3") + k for k in range(1, 6)} <= got  # -, -1, -1., -1.5, -1.5e
    assert {at("true") + k for k in (1, 2, 3)} <= got
    assert all(0 < n <= len(text) for n in got)


def test_a_long_text_gets_fewer_prefixes_the_cuts_first():
    text = json.dumps({"k": "x" * 20_000, "n": 1})
    cuts = tuple(range(100, 20_000, 4000))
    got = prefixes_of(text, cuts)
    assert len(got) <= max(8, PARSE_BUDGET // len(text)) and set(cuts) <= set(got)
    short = json.dumps({"k": list(range(400))})
    assert len(prefixes_of(short)) == min(MAX_PREFIXES, PARSE_BUDGET // len(short)) < len(short)


def test_only_finished_calls_whose_text_is_json_are_judged():
    text = '{"x": "abcdefghijklmnop"}'
    calls = (Call(0, 0, "a", "f", text, COMPLETE, (10,)), Call(0, 1, "b", "f", text, SCHEMA_INVALID),
             Call(0, 2, "c", "f", '{"x"', INVALID_JSON), Call(0, 3, "d", "f", '{"x": 1', INCOMPLETE),
             Call(1, 0, "e", "f", " ", COMPLETE), Call(1, 1, "g", "f", "[{}]", SCHEMA_INVALID))
    texts = texts_of(Outcome(calls))
    assert [(t.choice, t.index) for t in texts] == [(0, 0), (0, 1)]
    assert 10 in texts[0].prefixes and 10 not in texts[1].prefixes
