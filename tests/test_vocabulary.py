"""toolfuzz.vocabulary: the token boundaries a producer case's batches may fall on; a target's output kept."""

from __future__ import annotations

from hypothesis import given, strategies as st

from toolfuzz.vocabulary import OUTPUT_KEPT, TEXT_FORMATS, TEXT_SPECIALS, Output, text_tokens


def test_every_format_says_which_marks_are_one_token():
    assert set(TEXT_SPECIALS) == set(TEXT_FORMATS)


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
