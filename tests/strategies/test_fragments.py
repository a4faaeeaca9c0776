from hypothesis import given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import fragments, hard_places
from toolfuzz.strategies.fragments import join_fragments, to_utf16_units

TEXTS = st.one_of(
    st.text(),
    st.builds(lambda s: '{"a": "%s"}' % s, st.text(alphabet='ab\\"u0😀 {}')),
)


@settings(max_examples=300)
@given(st.data())
def test_fragments_always_join_to_the_text(data):
    text = data.draw(TEXTS)
    assert "".join(data.draw(fragments(text))) == text


@settings(max_examples=200)
@given(st.data())
def test_utf16_halves_join_back_to_the_whole_character(data):
    # At least one character outside the BMP in every text: the surrogate cut is then always required.
    text = data.draw(st.text())
    at = data.draw(st.integers(0, len(text)))
    text = text[:at] + data.draw(st.characters(min_codepoint=0x10000)) + text[at:]
    units = to_utf16_units(text)
    pieces = data.draw(fragments(units, must="surrogate"))
    assert join_fragments(pieces) == text
    assert any(p and "\ud800" <= p[-1] <= "\udbff" for p in pieces[:-1]), pieces


def test_hard_places_find_the_hard_places():
    text = '{"a": "x\\"y\\u00e9"}'
    places = hard_places(text)
    assert text[places["after-backslash"][0] - 1] == "\\"
    assert any(text[i - 1] in "0e" for i in places["in-unicode-escape"])
    assert 1 in places["brace"] and places["whitespace"]


def test_fragments_reach_the_hard_cuts():
    seen = set()
    text = '{"path": "C:\\\\dir\\\\f.txt", "n": "\\u00e9"}'

    @settings(max_examples=300, database=None)
    @given(fragments(text))
    def look(pieces):
        if len(pieces) == 1:
            seen.add("whole")
        if any(p.endswith("\\") for p in pieces[:-1]):
            seen.add("after-backslash")
        if "" in pieces:
            seen.add("empty")
        if len(pieces) == len(text):
            seen.add("one-char")

    look()
    assert seen == {"whole", "after-backslash", "empty", "one-char"}


def test_fragments_shrink_to_the_whole_text():
    from hypothesis import find

    assert find(fragments("abc"), lambda p: True) == ["abc"]


def test_cut_offsets_are_where_the_fragments_meet_in_the_joined_text():
    from toolfuzz.strategies.fragments import cut_offsets, join_fragments, to_utf16_units
    assert cut_offsets(['{"a', "", '": 1', "}"]) == (3, 7)
    units = to_utf16_units("x\U0001F600y")  # x, two halves, y
    assert join_fragments([units[:2], units[2:]]) == "x\U0001F600y"
    assert cut_offsets([units[:2], units[2:]]) == ()  # between the halves: inside one code point
    assert cut_offsets([units[:1], units[1:3], units[3:]]) == (1, 2)
    assert cut_offsets(["abc"]) == () and cut_offsets(["", "abc", ""]) == ()
