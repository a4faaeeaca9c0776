"""toolfuzz.judge.compare_producer: a serving engine's parser judged on the calls and content a model wrote."""

from __future__ import annotations

from types import SimpleNamespace as Seen

from toolfuzz.judge.compare_producer import ORDER, PRODUCER_KINDS, compare_producer
from toolfuzz.judge.compare import KINDS
from toolfuzz.vocabulary import COMPLETE, Call, Outcome

WRITTEN = Outcome((Call(0, 0, None, "get_weather", '{"city": "Paris"}', COMPLETE),
                   Call(0, 1, None, "search", '{"q": 1.0, "exact": true}', COMPLETE)), None, "Let me check.\nDone.")
MARKS = ("<tool_call>", "</tool_call>")


def streamed(*calls):
    return [Seen(index=i, id=f"call_{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]


RIGHT = streamed(("get_weather", '{"city":"Paris"}'), ("search", '{"exact": true, "q": 1}'))
WHOLE = [Seen(name=c.name, arguments=c.arguments) for c in WRITTEN.calls]


def kinds(calls=RIGHT, content="Let me check.  Done.", whole=WHOLE, whole_content="Let me check.\n\nDone."):
    return [k for k, _ in compare_producer(WRITTEN, calls, content, whole, whole_content, MARKS)]


def test_the_calls_written_handed_on_as_the_same_values_are_right_however_written():
    # Another spacing, another key order, 1 for 1.0: the same JSON values; white space around content aside.
    assert kinds() == []


def test_an_integer_past_a_double_s_precision_read_as_that_double_is_the_same_value():
    # RFC 8259, section 6: precision past an IEEE double is each implementation's; orjson reads 2**64 + 38 so.
    big = Outcome((Call(0, 0, None, "add", '{"n": [18446744073709551654, 0]}', COMPLETE),), None, "")
    as_double = [Seen(index=0, id="call_0", name="add", arguments='{"n": [1.8446744073709552e+19, 0]}')]
    assert compare_producer(big, as_double, "", as_double, "", MARKS) == []
    # A number that is another double is still another value.
    wrong = [Seen(index=0, id="call_0", name="add", arguments='{"n": [1.8446744073709550e+19, 0]}')]
    assert [k for k, _ in compare_producer(big, wrong, "", wrong, "", MARKS)] == ["arguments_differ", "whole_differs"]


def test_each_mistake_in_the_streamed_calls_is_its_kind():
    assert kinds(RIGHT[:1]) == ["call_lost"]
    assert kinds(RIGHT + streamed(("x", "{}"))) == ["phantom_call"]
    assert kinds(streamed(("get_weather", '{"city":"Paris"}'), ("find", "{}"))) == ["name_differs"]
    assert kinds(streamed(("get_weather", ""), ("search", '{"exact": true, "q": 1}'))) == ["arguments_invalid"]
    # true is not 1, though Python says True == 1.
    assert kinds(streamed(("get_weather", '{"city":"Paris"}'), ("search", '{"exact": 1, "q": 1}'))) == [
        "arguments_differ"]
    shifted = [Seen(index=c.index + 1, id=c.id, name=c.name, arguments=c.arguments) for c in RIGHT]
    assert kinds(shifted) == ["index_differs"]
    same_id = [Seen(index=c.index, id="call_0", name=c.name, arguments=c.arguments) for c in RIGHT]
    assert kinds(same_id) == ["id_differs"]


def test_content_is_judged_once_the_calls_are_right_and_markup_in_it_is_a_leak():
    assert kinds(content="Let me check.</tool_call>Done.") == ["markup_leaked"]
    assert kinds(content="Let me check.") == ["content_differs"]
    # A call the parser missed shows as content: that is the call lost, not a second mistake.
    assert kinds(RIGHT[:1], content='Let me check.<tool_call>{"name": "search"}</tool_call>Done.') == ["call_lost"]


def test_the_whole_text_parse_is_judged_on_its_own_and_said_when_only_it_gets_the_calls_right():
    assert kinds(whole=WHOLE[:1]) == ["whole_differs"]
    assert kinds(whole_content="Let me check.") == ["whole_differs"]
    both = compare_producer(WRITTEN, RIGHT[:1], "", WHOLE[:1], "", MARKS)
    assert [k for k, _ in both] == ["call_lost", "whole_differs"]
    assert not both[0][1].endswith("gets it right)")
    (alone,) = compare_producer(WRITTEN, RIGHT[:1], "", WHOLE, "Let me check. Done.", MARKS)
    assert alone[1].endswith("(the whole-text parse of the same text gets it right)")


def test_every_producer_kind_is_a_kind_of_the_judge_in_its_order():
    assert set(PRODUCER_KINDS) <= set(KINDS) and set(ORDER) <= set(KINDS)
    assert [k for k in ORDER if k in PRODUCER_KINDS] == [k for k in KINDS if k in PRODUCER_KINDS and k in ORDER]
