"""toolfuzz.judge.producer: a producer's deltas assembled by the reference, as any client assembles them."""

from __future__ import annotations

import pytest

from toolfuzz.judge.producer import answer_of, assembled


def named(index, call_id, name, arguments=""):
    return {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def more(index, arguments):
    return {"index": index, "function": {"arguments": arguments}}


def test_fragments_of_interleaved_calls_are_joined_by_index_as_a_client_joins_them():
    deltas = [named(0, "call_0", "a", '{"x"'), named(1, "call_1", "b"), more(0, ": 1}"), more(1, "{}")]
    assert assembled(deltas) == [{"index": 0, "id": "call_0", "name": "a", "arguments": '{"x": 1}'},
                                 {"index": 1, "id": "call_1", "name": "b", "arguments": "{}"}]
    assert assembled([]) == []


def test_an_answer_of_the_wrong_shape_says_what_is_wrong():
    good = {"content": "", "deltas": [], "whole": {"content": "", "calls": []}}
    assert answer_of(good) == ("", [], "", [])
    with pytest.raises(ValueError, match="not list"):
        answer_of([])
    with pytest.raises(ValueError, match="deltas must be a list of objects"):
        answer_of({**good, "deltas": ["x"]})
    with pytest.raises(ValueError, match=r"whole.calls\[0\] must be an object with name and arguments"):
        answer_of({**good, "whole": {"content": "", "calls": [{"name": 1}]}})
