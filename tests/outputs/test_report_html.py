"""The HTML report's page: figures, the plot of root causes over time, the causes grouped by severity, one file."""

from __future__ import annotations

import re

from toolfuzz.outputs.report import render

from tests.outputs.test_finding_html import finding, parsed


def summary(divergences: list[dict]) -> dict:
    """A run's JSON summary (the shape ``toolfuzz run --json`` prints) holding ``divergences``."""
    targets = sorted({d["target"] for d in divergences})
    return {"seed": 1, "examples": 40, "seconds": 12.0, "startup_seconds": 2.0, "stopped_by": "examples",
            "workers": 1, "flaky": [], "profiles": {"openai": 40}, "hits": sum(d["hits"] for d in divergences),
            "targets": [{"name": t, "level": "events", "seconds_in_target": 0.1, "examples": 40,
                         "divergences": [{k: v for k, v in d.items() if k != "target"}
                                         for d in divergences if d["target"] == t]} for t in targets]}


def causes(tmp_path) -> list[dict]:
    shared = finding(tmp_path / "a", "two-calls-interleaved", "selftest-shared-buffer")
    brace = finding(tmp_path / "b", "closing-brace-is-not-completion", "selftest-brace-completion")
    key = finding(tmp_path / "c", "first-fragment-without-id", "selftest-key-by-id")
    shared["severity"], brace["severity"], key["severity"] = "note", "bug", "robustness"
    shared["first_seen"], brace["first_seen"], key["first_seen"] = (
        {"examples": 3, "seconds": 1.0}, {"examples": 1, "seconds": 0.2}, {"examples": 10, "seconds": 4.0})
    return [shared, brace, key]


def test_root_causes_are_grouped_gravest_first_with_their_counts(tmp_path):
    page = render("r.html", summary(causes(tmp_path)), [])
    groups = re.findall(r'<section class="group" id="sev-(\w+)">.*?<span class="count">(\d+)</span>', page)
    assert groups == [("bug", "1"), ("robustness", "1"), ("note", "1")]
    entries = re.findall(r'<details class="cause"><summary><span class="sev sev-(\w+)">', page)
    assert entries == ["bug", "robustness", "note"]


def test_a_cause_without_a_severity_is_shown_last_as_ungraded(tmp_path):
    found = causes(tmp_path)
    del found[0]["severity"]
    page = render("r.html", summary(found), [])
    assert re.findall(r'<section class="group" id="sev-(\w+)">', page) == ["bug", "robustness", "note", "ungraded"]
    assert "ungraded" not in re.findall(r'id="sev-(\w+)"', render("r.html", summary(causes(tmp_path)), []))


def test_the_plot_has_one_marker_per_root_cause_against_seconds_and_examples(tmp_path):
    found = causes(tmp_path)
    found[2]["first_seen"] = None
    page = render("r.html", summary(found), [])
    plots = re.findall(r'<svg class="plot".*?</svg>', page, re.S)
    assert len(plots) == 2 and [p.count("<circle") for p in plots] == [2, 2]
    assert "1 root cause(s) with no first-seen time are not plotted" in page
    # The last new one came at example 3 of 40.
    assert "met at example 3 of 40 (8% into the run); the last 92% found nothing new" in page


def test_the_page_is_one_file_that_loads_and_runs_nothing(tmp_path):
    page = render("r.HTML", summary(causes(tmp_path)), [{"target": "t", "kind": "crash", "fixture": "f.json"}])
    assert page.startswith("<!doctype html>") and "<style>" in page
    assert "http" not in page and "<script" not in page and "<link" not in page
    assert not re.search(r"\b(src|href)=", page)
    cells = parsed(page)
    # The tables the Markdown report has are there too, the root causes' table left to the entries.
    assert "Fixed findings" in cells.text and "Matrix" in cells.text and "f.json" in cells.text
    assert "Root causes over time" in cells.text and "targets affected" not in cells.text


def test_the_markdown_report_keeps_its_root_causes_table(tmp_path):
    found = causes(tmp_path)
    section = render("r.md", summary(found), []).split("## Root causes")[1].split("##")[0]
    assert all(f"| {d['target']} | {d['signature'].split('/', 1)[1]} | yes |" in section for d in found), section
