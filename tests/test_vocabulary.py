"""toolfuzz.vocabulary: the token boundaries a producer case's batches may fall on; a target's output kept."""

from __future__ import annotations

from hypothesis import given, strategies as st

from toolfuzz.vocabulary import OUTPUT_KEPT, TEXT_FORMATS, TEXT_SPECIALS, TEXT_TOKENS, Output, text_tokens


def test_every_format_says_which_marks_are_one_token():
    assert set(TEXT_SPECIALS) == set(TEXT_FORMATS) and set(TEXT_TOKENS) <= set(TEXT_FORMATS)
    # A mark is one special token or one plain token, never both.
    assert all(not set(marks) & set(TEXT_SPECIALS[f]) for f, marks in TEXT_TOKENS.items())


@given(st.text(max_size=40))
def test_tokens_join_back_to_the_text_and_never_cut_a_special_mark(text):
    marks = TEXT_SPECIALS["deepseek-v3"]
    whole = text + marks[0] + text + marks[4] + "x"
    pieces = text_tokens(whole, marks)
    assert "".join(pieces) == whole
    assert marks[0] in pieces and marks[4] in pieces
    assert all(p for p in pieces)


def test_tokens_cut_words_white_space_and_runs_of_punctuation_apart():
    # A run of punctuation stays whole: every vocabulary holds '":' as one token, and a parser may count on it.
    assert text_tokens('a bc  {"d": [1]}', ()) == ["a", " ", "bc", "  ", '{"', "d", '":', " ", "[", "1", "]}"]


def test_two_outputs_of_one_call_join_each_stream_and_stay_bounded():
    assert Output("a\n") + Output("b\n", "e\n") == Output("a\nb\n", "e\n")
    assert Output() + Output() == Output() and not Output()
    long = Output("x" * (2 * OUTPUT_KEPT)) + Output("y" * 10)
    assert long.stdout.startswith("x" * OUTPUT_KEPT + "\n[... 10 bytes left out ...]\n")
    assert long.stdout.endswith("x" * (OUTPUT_KEPT - 10) + "y" * 10)


def test_a_whole_input_is_compact_json_and_an_empty_one_is_no_text():
    from toolfuzz.vocabulary import input_text
    assert input_text({"a": [1, "é"], "n": 2**70}) == '{"a":[1,"é"],"n":1180591620717411303424}'
    assert input_text({}) == ""


def test_a_payload_is_read_exactly_even_where_orjson_would_round_an_integer_past_64_bits():
    import pytest
    from toolfuzz.judge.feeding import parse_chunks
    from toolfuzz.vocabulary import exact_json
    big = b'{"input": {"n": 73108993792763518068009, "m": -9223372036854775809}, "x": 1.5}'
    assert exact_json(big) == {"input": {"n": 73108993792763518068009, "m": -9223372036854775809}, "x": 1.5}
    # what an events-level target is handed, and what the reference reads, keep every digit too
    assert parse_chunks([big])[0]["input"]["n"] == 73108993792763518068009
    # 18 digits are read fast and exactly; 19 digits split by a non-digit are no long integer.
    assert exact_json(b'{"n": 999999999999999999, "s": "123456789.123456789"}') == {
        "n": 999999999999999999, "s": "123456789.123456789"}
    assert exact_json(b'[9223372036854775808]') == [9223372036854775808]
    for bad in (b'{"n": NaN, "id": "1234567890123456789012"}', b'{"n": NaN}', b"{"):
        with pytest.raises(ValueError):
            exact_json(bad)
