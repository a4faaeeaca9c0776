"""One root cause's entry in the HTML report: its commands, its calls side by side with what differs marked,
and its timeline; from seed fixtures and what real self-test targets made of them."""

from __future__ import annotations

import html
import shlex
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from toolfuzz.corpus.fixtures import dumps, load, printable
from toolfuzz.judge.compare import compare
from toolfuzz.judge.sandbox import observe
from toolfuzz.outputs.finding_html import entry
from toolfuzz.outputs.timeline import render as timeline
from toolfuzz.targets.selftest import SELFTEST

from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
BY_NAME = {t.name: t for t in SELFTEST}


def finding(folder: Path, seed: str, target: str, observation: dict | None = None) -> dict:
    """A fixture file of ``seed`` recording what ``target`` really made of it (or ``observation``), and the
    summary's divergence for it, as ``toolfuzz run --json`` writes one."""
    fixture = load(SEED / f"{seed}.json")
    kind, detail = "arguments_differ", "made up"
    if observation is None:
        found = observe(BY_NAME[target], fixture.case, timeout=30.0)
        [first, *_] = compare(fixture.case.expected, found, BY_NAME[target])
        kind, detail, observation = first.kind, first.detail, found.to_json()
    observed = {target: {"verdict": "diverges", "kind": kind, "detail": detail, "level": "events",
                         "observation": observation}}
    path = folder / f"{seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(replace(fixture, observed=observed)), encoding="utf-8")
    return {"target": target, "signature": f"{target}/{kind}/plain", "kind": kind, "severity": "bug",
            "detail": detail, "fixture": str(path), "file": "written", "hits": 3,
            "first_seen": {"examples": 2, "seconds": 0.5}, "also_in": [], "also_as": []}


class Cells(HTMLParser):
    """The text marked in each column of the calls table, the classes met, and all text."""

    def __init__(self) -> None:
        super().__init__()
        self.column = -1
        self.marking = 0
        self.marks: dict[int, list[str]] = {0: [], 1: []}
        self.classes: list[str] = []
        self.text = ""

    def handle_starttag(self, tag, attrs):
        self.classes += (dict(attrs).get("class") or "").split()
        if tag == "tr":
            self.column = -1
        elif tag == "td":
            self.column += 1
        elif tag == "mark":
            self.marking += 1
            self.marks.setdefault(self.column, []).append("")

    def handle_endtag(self, tag):
        if tag == "mark":
            self.marking -= 1

    def handle_data(self, data):
        self.text += data
        if self.marking:
            self.marks[self.column][-1] += data


def parsed(page: str) -> Cells:
    cells = Cells()
    cells.feed(page)
    return cells


def test_arguments_that_differ_are_marked_on_both_sides_and_what_agrees_is_not(tmp_path):
    # The shared buffer gives the first call only the start of its text and the second the rest.
    cells = parsed(entry(finding(tmp_path, "two-calls-interleaved", "selftest-shared-buffer"), 3))
    expected, actual = cells.marks[0], cells.marks[1]
    # Call 0 is missing the end of its text, call 1 has it in front of its own: an empty mark says where text
    # the other side has is missing.
    moved = 'is", "unit": "celsius"}'
    assert expected == [moved, "\u200b"] and actual == ["\u200b", moved], (expected, actual)
    assert not any(word in mark for mark in expected + actual for word in ("call_w1", "get_weather", "complete"))
    assert "unpaired" not in cells.classes


def test_a_status_that_differs_is_marked(tmp_path):
    # Brace completion hands on, as complete, a call whose stream never finished it.
    cells = parsed(entry(finding(tmp_path, "closing-brace-is-not-completion", "selftest-brace-completion"), 3))
    assert cells.marks[0] == ["incomplete"] and cells.marks[1] == ["complete"]


def test_a_call_only_one_side_has_is_shown_paired_with_none(tmp_path):
    cells = parsed(entry(finding(tmp_path, "first-fragment-without-id", "selftest-key-by-id"), 3))
    assert cells.classes.count("unpaired") == 1 and "no call here" in cells.text
    # The call both have: its id (none where call_late was expected) and the end of its text differ.
    assert cells.marks == {0: ['"call_late"', 'th": "a.txt"}'], 1: ["none", "\u200b"]}, cells.marks


def test_the_timeline_is_toolfuzz_show_s_and_the_commands_are_quoted_for_a_shell(tmp_path):
    folder = tmp_path / "it's a folder"
    divergence = finding(folder, "two-calls-interleaved", "selftest-shared-buffer")
    page = entry(divergence, 3)
    path = shlex.quote(divergence["fixture"])
    assert f"toolfuzz show {html.escape(path)}</pre>" in page
    assert f"toolfuzz replay --target selftest-shared-buffer {html.escape(path)}</pre>" in page
    [shown] = page.split('<pre class="timeline">')[1:]
    assert html.unescape(shown.split("</pre>")[0]) == printable(timeline(load(divergence["fixture"])))
    assert page.startswith('<details class="cause"><summary>') and page.endswith("</details>")


def test_what_a_library_answered_is_escaped(tmp_path):
    hostile = '</pre><script>alert(1)</script>'
    divergence = finding(tmp_path, "two-calls-interleaved", "<img src=x onerror=alert(1)>", {"calls": [
        {"choice": 0, "index": 0, "id": hostile, "name": "\x1b[31m", "arguments": hostile, "complete": True}]})
    divergence["detail"] = hostile
    page = entry(divergence, 3)
    assert "<script" not in page and "<img" not in page and "\x1b" not in page
    assert html.escape(hostile) in page and hostile in parsed(page).text


def test_a_fixture_that_cannot_be_read_still_gets_its_entry(tmp_path):
    divergence = finding(tmp_path, "two-calls-interleaved", "selftest-shared-buffer")
    Path(divergence["fixture"]).unlink()
    cells = parsed(entry(divergence, 3))
    assert "The fixture cannot be read" in cells.text and "selftest-shared-buffer" in cells.text


def test_an_index_that_differs_is_marked_and_the_calls_still_pair_by_place(tmp_path):
    # Numbered from one, as some servers do: each call is the expected one but for its index.
    expected = [c.to_json() for c in load(SEED / "two-calls-interleaved.json").case.expected.calls]
    shifted = [{**c, "index": c["index"] + 1, "complete": True} for c in expected]
    cells = parsed(entry(finding(tmp_path, "two-calls-interleaved", "selftest-plain", {"calls": shifted}), 3))
    assert cells.marks == {0: ["0", "1"], 1: ["1", "2"]}, cells.marks
