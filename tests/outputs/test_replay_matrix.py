"""``toolfuzz replay``'s report (toolfuzz.outputs.replay_matrix): the matrix, its cells' words, JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.corpus.test_replay import DISCONNECT, HAND_OUT, SEED, diverging, misbehaving_report, variant
from toolfuzz.corpus.replay import load_fixtures, replay
from toolfuzz.outputs.replay_matrix import cell_text, render, replay_junit
from toolfuzz.targets.base import Target
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.selftest import PLAIN


def test_raising_timing_out_and_blocked_targets_have_their_own_words():
    assert [cell_text(c) for c in misbehaving_report().cells[1:]] == ["RAISES", "TIMEOUT", "BLOCKED"]


def test_the_matrix_has_a_row_per_fixture_a_legend_and_a_summary(tmp_path):
    path = variant(tmp_path, DISCONNECT, observed={HAND_OUT: diverging("incomplete_handed_on")})
    fixtures = load_fixtures([str(SEED), str(path)])
    report = replay(fixtures)
    text = render(report, width=200)
    rows = [line for line in text.splitlines() if line.startswith(tuple(f.label for f in fixtures))]
    assert len(rows) == len(fixtures)
    assert "still fails: incomplete_handed_on" in text and "legend:" in text
    assert text.splitlines()[-1] == (f"pass: {len(fixtures)} fixtures x 2 targets, {len(fixtures)} ok, "
                                     f"1 still fails, 0 unexpected")
    # Narrow terminals get the columns in blocks, each repeating the fixture names.
    narrow = render(replay(fixtures, [PLAIN, builtin_targets()[HAND_OUT]]), width=60)
    headers = [line.split()[1:] for line in narrow.splitlines() if line.startswith("fixture ")]
    assert headers == [["1", "2"], ["3"]]  # the third column's DIVERGES cells would pass 60


def test_junit_counts_match_the_verdicts_and_survive_any_exception_text(tmp_path):
    def nasty(chunks):
        raise ValueError("bad \x00 byte \udcff and <tag> & \x1b")

    recorded = variant(tmp_path, DISCONNECT, "recorded.json",
                       observed={HAND_OUT: diverging("incomplete_handed_on"), "other:fn": diverging("raised")})
    report = replay(load_fixtures([str(recorded), str(SEED / "two-calls-interleaved.json")]),
                    [builtin_targets()[HAND_OUT], Target(name="nasty", fn=nasty)])
    root = ET.fromstring(replay_junit(report).encode("utf-8"))
    assert root.tag == "testsuites"
    # 2 fixtures x (reference, hand-out, nasty) + the skipped recorded target; raising on the cut stream,
    # which has nothing executable, is a refusal and passes.
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("7", "1", "2")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["disconnect-mid-arguments", "two-calls-interleaved"]
    failed = [(s.get("name"), t.get("name")) for s in suites for t in s.findall("testcase") if t.find("failure") is not None]
    assert failed == [("two-calls-interleaved", "nasty")]
    message = suites[1].find("testcase[@name='nasty']/failure").get("message")
    assert "<tag> &" in message and "\\x00" in message


#: The matrix of the seed fixtures on the plain assembler and on a mutant, as render() printed it before
#: the compact matrix (captured from that version): --wide and a pipe still get these very bytes.
WHOLE = """targets:
  1  reference  (bytes, 0.1.0)
  2  selftest-plain  (events)
  3  selftest-hand-out-after-disconnect  (events)

fixture                          1   2   3
closing-brace-is-not-completion  ok  ok  DIVERGES incomplete_handed_on
completed-invalid-json           ok  ok  ok
cut-after-backslash              ok  ok  ok
cut-inside-string                ok  ok  ok
disconnect-mid-arguments         ok  ok  DIVERGES incomplete_handed_on
first-fragment-without-id        ok  ok  ok
read-splits-multibyte            ok  ok  ok
two-calls-interleaved            ok  ok  ok

legend:
  ok           agrees with the expected outcome
  fixed        recorded as diverging, now agrees
  still fails  recorded as diverging, still diverges as recorded
  changed      recorded as diverging, now diverges another way
  DIVERGES k   diverges with first kind k, and was not recorded: fails the replay
  RAISES       raised, not recorded: fails (TIMEOUT: ran past --timeout; BLOCKED: tried a forbidden action)
  skipped      recorded for the fixture but not run
  -            not run on this fixture
  UNREADABLE   the fixture file cannot be read or used (details say why): nothing ran on it

details:
  closing-brace-is-not-completion x selftest-hand-out-after-disconnect: unexpected: incomplete_handed_on: \
call 0 of choice 0 was never finished but is handed on
  disconnect-mid-arguments x selftest-hand-out-after-disconnect: unexpected: incomplete_handed_on: \
call 0 of choice 0 was never finished but is handed on

FAIL: 8 fixtures x 3 targets, 22 ok, 2 unexpected
"""


def seed_on_a_mutant(*more):
    return replay(load_fixtures([str(SEED), *map(str, more)]), [PLAIN, builtin_targets()[HAND_OUT]])


def test_the_whole_matrix_is_byte_for_byte_what_it_always_was():
    assert render(seed_on_a_mutant(), 120) == WHOLE
    assert render(seed_on_a_mutant(), 120, compact=False) == WHOLE
    # However narrow the blocks of columns, no other line is folded or cut: a pipe reads them whole.
    narrow = render(seed_on_a_mutant(), 60).splitlines()
    long = [line for line in WHOLE.splitlines() if len(line) > 60 and line.startswith("  ")]
    assert len(long) == 7 and long == [line for line in narrow if len(line) > 60 and line.startswith("  ")]


def test_the_compact_matrix_keeps_only_the_rows_and_columns_with_news_and_says_how_many_it_left_out(tmp_path):
    # A fixture that records the mutant's divergence: it still fails, as expected, and is no news.
    recorded = variant(tmp_path, DISCONNECT, name="recorded-disconnect",
                       observed={HAND_OUT: diverging("incomplete_handed_on")})
    report = seed_on_a_mutant(recorded)
    assert "still fails: incomplete_handed_on" in render(report, 120)
    text = render(report, 100, compact=True)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[:8] == ["targets:",
                         "  3  selftest-hand-out-after-disconnect  (events)",
                         "",
                         "fixture                          3",
                         "closing-brace-is-not-completion  DIVERGES incomplete_handed_on",
                         "disconnect-mid-arguments         DIVERGES incomplete_handed_on",
                         "",
                         "left out: 7 of 9 fixtures and 2 of 3 targets whose every cell is ok, still fails as "
                         "recorded,"]
    assert lines[8] == "  skipped or not run (-); --wide shows them all"
    # Details only of the cells shown; the summary still counts every cell.
    details = lines[lines.index("details:") + 1:lines.index("details:") + 5]
    assert [d.split(" x ")[0].strip() for d in details if " x " in d] == ["closing-brace-is-not-completion",
                                                                        "disconnect-mid-arguments"]
    assert lines[-1] == "FAIL: 9 fixtures x 3 targets, 24 ok, 1 still fails, 2 unexpected"


def test_a_compact_matrix_with_no_news_is_a_line_saying_so():
    report = replay(load_fixtures([str(SEED)]), [PLAIN])
    text = render(report, 80, compact=True)
    assert text.splitlines()[:3] == ["left out: 8 of 8 fixtures and 2 of 2 targets whose every cell is ok, still "
                                     "fails", "  as recorded, skipped or not run (-); --wide shows them all", ""]
    assert not any(line.startswith(("fixture ", "targets:")) for line in text.splitlines())
