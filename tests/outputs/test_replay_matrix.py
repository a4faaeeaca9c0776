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
