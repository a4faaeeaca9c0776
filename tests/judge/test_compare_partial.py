"""The partial contract's rules, one kind each, judged on what a parser showed at each prefix."""

import math

import pytest

from toolfuzz.identity import CrashState
from toolfuzz.judge.compare_partial import PARTIAL_KINDS, Reading, compare_partial, same
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.judge.observation import PrefixAnswer
from toolfuzz.targets.reference.partial import parse
from toolfuzz.vocabulary import COMPLETE, Call, Outcome

TEXT = '{"a": "x\\u00e9y", "n": 12, "l": [1, true], "z": null}'


def _judged(show, text=TEXT, reading=Reading()):
    """The kinds found when the parser ``show`` (prefix -> value, or an exception to raise) is asked every prefix
    (every one, not only those the harness would choose, so that each test can aim at one)."""
    (judged,) = texts_of(Outcome((Call(0, 0, "c", "f", text, COMPLETE),)))
    answers = []
    for n in range(1, len(text) + 1):
        try:
            answers.append(PrefixAnswer(0, n, show(text[:n])))
        except ValueError as e:
            answers.append(PrefixAnswer(0, n, raised=f"ValueError: {e}",
                                        crash_state=CrashState("ValueError", ("p.f",))))
    return {kind: (detail, state) for kind, detail, state in compare_partial((judged,), answers, reading)}


def test_the_reference_keeps_every_rule():
    assert _judged(parse) == {}


def test_nothing_shown_before_the_complete_text_keeps_every_rule():
    assert _judged(lambda p: parse(p) if p == TEXT else None) == {}


def _at(prefix_end, wrong, otherwise=parse):
    """A parser that shows ``wrong`` at the prefix ending with ``prefix_end``, and the reference's value elsewhere."""
    return lambda p: wrong if p.endswith(prefix_end) and p != TEXT else otherwise(p)


@pytest.mark.parametrize("show,kind", [
    (lambda p: {**parse(p), "extra": 1} if p == TEXT else parse(p), "final_differs"),
    (lambda p: {k: float(v) if type(v) is int else v for k, v in parse(p).items()} if p == TEXT else parse(p),
     "final_differs"),
    (_at('"n": 1', {"a": "xéy", "n": 1}), "number_before_complete"),
    (_at('"n"', {"a": "xéy", "m": None}), "invented_key"),
    (_at('"n', {"a": "xéy", "n": None}), "invented_key"),
    (_at('"n":', {"a": "xéy", "n": None}), "invented_value"),
    (_at('"l": [1,', {"a": "xéy", "n": 12, "l": [1, True, 3]}), "invented_value"),
    (_at('"a": "x\\', {"a": "x\\"}), "string_not_prefix"),
    (_at('"a": "x\\u00', {"a": "x\\u00"}), "string_not_prefix"),
    (_at('"a": "x\\u00e9y",', {"a": "x"}), "string_not_prefix"),
    (_at('"a": "x', {"a": 0}), "type_differs"),
    (_at('"n": 12,', {"a": "xéy", "n": 12.0}), "scalar_differs"),
    (_at('"l": [1, true]', {"a": "xéy", "n": 12, "l": [1, False]}), "scalar_differs"),
    (_at('"a": "x\\u00e9', {}), "value_taken_back"),
])
def test_each_rule_broken_alone_is_its_own_kind(show, kind):
    found = _judged(show)
    assert list(found) == [kind], found


def test_a_raise_on_a_prefix_that_holds_the_value_is_raised_on_prefix_with_its_crash_state():
    def show(p):
        if p.endswith('"a": "x'):
            raise ValueError("unterminated")
        return parse(p)

    found = _judged(show)
    assert list(found) == ["raised_on_prefix"]
    detail, state = found["raised_on_prefix"]
    assert str(state) == "ValueError at p.f" and "unterminated" in detail


def test_a_raise_on_white_space_alone_is_allowed():
    def show(p):
        if not p.strip():
            raise ValueError("empty")
        return parse(p)

    assert _judged(show, text='  {"a": 1}') == {}


def test_every_rule_a_case_breaks_is_reported_not_only_the_first():
    def show(p):
        if p.endswith('"n": 1'):
            return {"a": "xéy", "n": 1}
        if p.endswith('"a": "x\\'):
            return {"a": "x\\"}
        return parse(p)

    assert list(_judged(show)) == ["string_not_prefix", "number_before_complete"]


def test_a_target_without_exact_numbers_may_give_a_float_for_an_int():
    floats = lambda p: {k: float(v) if type(v) is int else v for k, v in (parse(p) or {}).items()}  # noqa: E731
    assert list(_judged(floats)) == ["final_differs", "scalar_differs"]
    assert _judged(floats, reading=Reading(exact_numbers=False)) == {}


def test_a_target_without_exact_numbers_is_judged_on_doubles():
    # JavaScript holds 2**64 + 1 as the double 2**64 and prints it 18446744073709552000: the same double.
    text = '{"seed": 18446744073709551617, "n": 12}'
    printed = lambda p: {**parse(p), "seed": 18446744073709552000} if p == text else parse(p)  # noqa: E731
    assert list(_judged(printed, text)) == ["final_differs"]
    assert _judged(printed, text, Reading(exact_numbers=False)) == {}
    # Another double is still another number.
    off = lambda p: {**parse(p), "seed": 18446744073709555000} if p == text else parse(p)  # noqa: E731
    assert list(_judged(off, text, Reading(exact_numbers=False))) == ["final_differs"]


def test_a_number_past_the_largest_double_is_read_as_an_infinity_not_a_crash():
    assert same(10 ** 400, math.inf, exact_numbers=False) and not same(10 ** 400, 1e308, exact_numbers=False)
    assert same(-10 ** 400, -math.inf, exact_numbers=False)


def _half_shown(text):
    """A parser that shows a string still arriving, cut between the two halves of a pair, ending in the first."""
    first, second = text.index("\\ud83d") + 6, text.index("\\ude00") + 6
    return lambda p: {"a": "x\ud83d"} if first <= len(p) < second else parse(p)


def test_a_target_whose_strings_are_utf16_may_show_the_first_half_of_a_pair_while_the_string_arrives():
    text = '{"a": "x\\ud83d\\ude00y"}'
    assert list(_judged(_half_shown(text), text)) == ["string_not_prefix"]
    assert _judged(_half_shown(text), text, Reading(utf16_strings=True)) == {}
    # Not once the string has closed, and not a half the final string does not hold there.
    closed = lambda p: {"a": "x\ud83d"} if p == text[:-1] else parse(p)  # noqa: E731
    assert "string_not_prefix" in _judged(closed, text, Reading(utf16_strings=True))
    other = lambda p: {"a": "x\ud83e"} if p.endswith("\\ud83d") else parse(p)  # noqa: E731
    assert list(_judged(other, text, Reading(utf16_strings=True))) == ["string_not_prefix"]


def test_same_keeps_json_types_apart():
    assert same(1, 1) and not same(1, 1.0) and not same(True, 1) and not same(None, 0)
    assert same(-0.0, -0.0) and not same(-0.0, 0.0) and same(-0.0, 0.0, exact_numbers=False)
    assert same({"a": [1, "x"]}, {"a": [1, "x"]}) and not same({"a": 1}, {"a": 1, "b": 2})
    assert not same(1, 1.0, exact_numbers=True) and same(1, 1.0, exact_numbers=False)


def test_every_kind_is_documented():
    from tests.paths import ROOT
    contract = (ROOT / "docs" / "contract.md").read_text()
    assert [k for k in PARTIAL_KINDS if f"`{k}`" not in contract] == []


ASKED = Reading(relaxations=frozenset({"partial-numbers"}))


def _digits_so_far(text, key, so_far):
    """A parser that shows the member ``key`` as ``so_far[what of its number has arrived]``, the reference's
    value elsewhere."""
    start = text.index(f'"{key}": ') + len(key) + 4

    def show(p):
        arrived = p[start:]
        if len(p) > start and arrived in so_far:
            shown = parse(p[:start - len(key) - 4].rstrip(", ") + "}") or {}
            return shown if so_far[arrived] is None else {**shown, key: so_far[arrived]}
        return parse(p)
    return show


def test_a_parser_asked_for_partial_numbers_may_show_the_digits_so_far_and_grow_them():
    digits = _digits_so_far(TEXT, "n", {"1": 1, "12": 12})
    assert list(_judged(digits)) == ["number_before_complete"]
    assert _judged(digits, reading=ASKED) == {}
    text = '{"f": -1.5e-3, "g": 7}'
    so_far = {"-": None, "-1": -1, "-1.": -1, "-1.5": -1.5, "-1.5e": -1.5, "-1.5e-": -1.5, "-1.5e-3": -1.5e-3}
    assert _judged(_digits_so_far(text, "f", so_far), text, ASKED) == {}


def test_a_parser_asked_for_partial_numbers_is_held_to_the_digits_so_far():
    # Another number, or a number where no digit has arrived, is still flagged.
    assert list(_judged(_digits_so_far(TEXT, "n", {"1": 2, "12": 12}), reading=ASKED)) == ["number_before_complete"]
    text = '{"f": -1.5e-3, "g": 7}'
    assert list(_judged(_digits_so_far(text, "f", {"-": 0}), text, ASKED)) == ["number_before_complete"]
    # A key shown and then gone is still taken back.
    assert list(_judged(_digits_so_far(TEXT, "n", {"1": 1, "12": None}), reading=ASKED)) == ["value_taken_back"]
