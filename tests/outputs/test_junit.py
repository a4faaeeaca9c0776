"""toolfuzz.outputs.junit: one shape for every report, counts that add up, any text made safe."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from toolfuzz.corpus.fixtures import printable
from toolfuzz.outputs.junit import Result, Suite, junit_xml


def test_counts_on_each_suite_and_totals_on_the_root():
    report = junit_xml("toolfuzz x", [
        Suite("a", (Result("a", "passes"), Result("a", "fails", 1.5, failure=("kind", "message", "text")))),
        Suite("b", (Result("b", "skipped", skipped="not installed"), Result("b", "fixed", output="fixed in 2.0")),
              seconds=3.0, file="b.json"),
    ])
    root = ET.fromstring(report.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("name") == "toolfuzz x"
    assert [root.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["4", "1", "0", "1"]
    a, b = root.findall("testsuite")
    assert [a.get(k) for k in ("tests", "failures", "skipped")] == ["2", "1", "0"] and a.get("file") is None
    assert [b.get(k) for k in ("tests", "failures", "skipped", "time", "file")] == ["2", "0", "1", "3.000", "b.json"]
    failure = a.find("testcase[@name='fails']/failure")
    assert (failure.get("type"), failure.get("message"), failure.text) == ("kind", "message", "text")
    assert b.find("testcase[@name='fixed']/system-out").text == "fixed in 2.0"


def test_text_from_a_fixture_cannot_break_the_xml():
    nasty = "nul \x00 escape \x1b lone \udcff <tag> & ok"
    report = junit_xml(nasty, [Suite(nasty, (Result(nasty, nasty, failure=(nasty, nasty * 100, nasty)),))])
    root = ET.fromstring(report.encode("utf-8"))
    message = root.find("testsuite/testcase/failure").get("message")
    assert "\\x00" in message and "\\x1b" in message and "<tag> &" in message
    assert message == printable((nasty * 100)[:500])  # at most 500 characters of the text, then escaped
