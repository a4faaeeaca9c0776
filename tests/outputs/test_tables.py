"""toolfuzz.outputs.tables: columns as wide as their widest cell, or fitted to a terminal's width."""

import io
import os

import pytest

from toolfuzz.outputs.tables import FLOOR, Column, aligned, fitted, folded, hanging, middle, terminal_width

RAISES = ("selftest-partial-raise-in-string/raised_on_prefix[ValueError at toolfuzz.targets.selftest.partial."
          "raise_in_string]/plain")
CAUSES = [("bug", "selftest-hand-out-after-disconnect/incomplete_handed_on/length", "100",
           "selftest-brace-completion, selftest-plain", "-", "example 1, 0.2 s"),
          ("robustness", "selftest-read-as-delta/arguments_differ/bom+no-first-id+no-role-chunk (unshrunk)", "102",
           "-", "call_lost, complete_withheld, id_differs, name_differs, reserialised", "example 14, 6.4 s"),
          ("robustness", RAISES, "101", "-", "-", "-")]
COLUMNS = (Column("severity"), Column("root cause", shrink=True), Column("hits"),
           Column("also in", wrap=", ", drop=2), Column("also as", wrap=", "), Column("first seen", drop=1))


def test_columns_are_padded_and_lines_carry_no_trailing_space():
    text = aligned([("name", "level", "what"), ("a-long-name", "bytes", "x"), ("b", "sse", "")], rule=True)
    assert text.splitlines() == ["name         level  what",
                                 "-----------  -----  ----",
                                 "a-long-name  bytes  x",
                                 "b            sse"]


def test_a_table_that_fits_or_is_not_fitted_is_exactly_the_aligned_one():
    whole = aligned([[c.header for c in COLUMNS], *CAUSES], rule=True)
    assert max(len(line) for line in whole.splitlines()) == 270
    assert fitted(CAUSES, COLUMNS, None) == whole
    assert fitted(CAUSES, COLUMNS, 270) == whole


@pytest.mark.parametrize("width", [80, 100, 120, 160])
def test_fitting_gives_no_line_over_the_width_and_loses_no_list_item(width):
    text = fitted(CAUSES, COLUMNS, width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    # A wrapped list keeps every item, whole, on its continuation lines.
    kinds = " ".join(line[lines[0].index("also as"):] for line in lines[2:] if len(line) > lines[0].index("also as"))
    for kind in ("call_lost,", "complete_withheld,", "id_differs,", "name_differs,", "reserialised"):
        assert kind in kinds.split(), width


def test_columns_are_left_out_in_their_order_only_as_far_as_needed_and_a_line_says_so():
    at_100 = fitted(CAUSES, COLUMNS, 100).splitlines()
    assert at_100[0].split("  ")[:1] == ["severity"] and "first seen" not in at_100[0] and "also in" not in at_100[0]
    assert at_100[-1] == "(also in, first seen: left out to fit 100 columns; --wide shows them)"
    # Room for every name whole once the first is gone: the second stays.
    at_200 = fitted(CAUSES, COLUMNS, 200).splitlines()
    assert "also in" in at_200[0] and "first seen" not in at_200[0]
    assert at_200[-1] == "(first seen: left out to fit 200 columns; --wide shows it)"


def test_a_root_cause_keeps_its_target_start_its_kind_and_its_features():
    assert middle(RAISES, 50) == "selftest-partial-raise-…/raised_on_prefix[…]/plain"
    # A kind and features too long to keep whole keep both their ends.
    assert middle("selftest-shared-buffer/arguments_misattributed/interleaved+multi-call", 40) == \
        "selftest-sha…/arguments_mis…d+multi-call"
    assert middle("no-slash-in-this-name-at-all", 10) == "no-sl…-all"
    assert middle("short", 5) == "short"


def test_middle_never_passes_its_width():
    for text in (RAISES, "a/b", "x" * 40, "target/" + "k" * 60):
        for width in range(1, len(text) + 2):
            cut = middle(text, width)
            assert len(cut) <= width and (cut == text) == (len(text) <= width), (text, width)


def test_folding_breaks_after_the_separator_and_cuts_only_a_word_longer_than_a_line():
    assert folded("call_lost, complete_withheld, id_differs", 20, ", ") == ["call_lost,", "complete_withheld,",
                                                                             "id_differs"]
    # An item with spaces in it stays on one line when it can, its comma with it.
    assert folded("number_before_complete 1, value_taken_back 1", 25, ", ") == ["number_before_complete 1,",
                                                                                 "value_taken_back 1"]
    assert folded("number_before_complete 1, value_taken_back 1", 24, ", ") == ["number_before_complete",
                                                                                 "1, value_taken_back 1"]
    assert folded("a" * 25 + " b", 10) == ["a" * 10, "a" * 10, "a" * 5 + " b"]


def test_hanging_lines_keep_their_indent_and_fit():
    line = "  RAISES       raised, not recorded: fails (TIMEOUT: ran past --timeout; BLOCKED: tried a forbidden action)"
    out = hanging(line, 80, 15)
    assert out == ["  RAISES       raised, not recorded: fails (TIMEOUT: ran past --timeout;",
                   "               BLOCKED: tried a forbidden action)"]
    assert hanging(line, None, 15) == [line]


def test_the_width_is_the_terminal_s_or_columns_with_a_floor_and_none_for_a_pipe(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

        def fileno(self):
            return 99

    sizes = {99: 132}

    def size_of(fd):
        if fd not in sizes:
            raise OSError("not a terminal")  # the test's own standard output, whatever runs it
        return os.terminal_size((sizes[fd], 24))

    monkeypatch.setattr(os, "get_terminal_size", size_of)
    monkeypatch.delenv("COLUMNS", raising=False)
    # A pipe (or a file) gets every column: what reads it is a program, grep or a log.
    assert terminal_width(io.StringIO()) is None
    # A terminal is as wide as its own descriptor says (standard error's, when that is the stream).
    assert terminal_width(Terminal()) == 132
    sizes[99] = 50
    assert terminal_width(Terminal()) == FLOOR
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width(io.StringIO()) == 100 and terminal_width(Terminal()) == 100
    assert terminal_width(io.StringIO(), wide=True) is None
    monkeypatch.setenv("COLUMNS", "40")
    assert terminal_width(io.StringIO()) == FLOOR
    monkeypatch.setenv("COLUMNS", "wide")
    assert terminal_width(io.StringIO()) is None
