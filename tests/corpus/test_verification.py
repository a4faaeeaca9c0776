"""toolfuzz verify: the adapters' tests on a sample of their libraries' releases, and where the verdicts are kept."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from toolfuzz.corpus.verification import (DOCS_END, DOCS_START, Library, Verdict, libraries, record, render_docs,
                                          sample, verdict_of_report, verify)
from toolfuzz.errors import UsageError
from toolfuzz.targets import adapters
from tests.paths import ROOT


def test_a_sample_holds_both_ends_and_spreads_evenly_between():
    versions = [f"1.{n}" for n in range(11)]
    assert sample(versions) == ["1.0", "1.5", "1.10"]
    assert sample(versions, 5) == ["1.0", "1.2", "1.5", "1.8", "1.10"]
    assert sample(versions, 2) == ["1.0", "1.10"]
    assert sample(versions, 1) == ["1.10"]
    assert sample(["2.0", "2.1"], 3) == ["2.0", "2.1"]
    # Never a release older than every adapter on the library supports.
    assert sample(versions, 3, since="1.4") == ["1.4", "1.7", "1.10"]
    with pytest.raises(UsageError, match="--releases 0: must be 1 or more"):
        sample(versions, 0)


def test_every_library_an_adapter_is_built_on_has_test_modules_and_what_they_import():
    found = {lib.distribution: lib for lib in libraries(ROOT)}
    # One entry per library, whatever the number of adapters on it; every adapter's targets under its library.
    # Not an engine in a built-in environment (sglang): it runs the release its recipe pins, installed its way.
    swept = [a for a in adapters.KNOWN if not a.environment]
    assert sorted(found) == sorted({a.distributions[0] for a in swept}) and "sglang" not in found
    assert all(lib.tests for lib in found.values()), [d for d, lib in found.items() if not lib.tests]
    assert {n for lib in found.values() for n in lib.targets} == {n for a in swept for n in a.names}
    # The partial parsers are tested side by side in one module: verifying jiter installs the others too.
    jiter = found["jiter"]
    assert jiter.tests == ("tests/targets/adapters/test_partial_parsers.py",)
    assert {"pydantic-core", "partial-json-parser", "json-repair", "langchain-core", "openai"} <= set(jiter.others)
    # An adapter's own other libraries go in beside it: httpx under httpx-sse.
    assert found["httpx-sse"].others == ("httpx",) and found["httpx-sse"].tests == (
        "tests/targets/adapters/test_httpx_sse.py",)
    # What the adapters on a library support: smolagents' one says from which release; openai's chat adapters
    # take every release, though its Responses adapters do not.
    assert found["smolagents"].since == "1.19.0" and found["openai"].since == ""
    # litellm's two adapter modules and their two test modules.
    assert set(found["litellm"].tests) == {"tests/targets/adapters/test_litellm.py",
                                           "tests/targets/adapters/test_litellm_anthropic.py"}
    # The scopes' test names every target but needs no library: taken for sseclient-py's, it had every other
    # library installed beside it, the engines with their GPU stacks among them, and the release never installed.
    assert found["sseclient-py"].tests == ("tests/targets/adapters/test_sseclient_py.py",)
    assert found["sseclient-py"].others == ()
    engines = {d for a in adapters.KNOWN if a.environment for d in a.distributions}
    assert not any(engines & set(lib.others) for lib in found.values())


def _report(tmp_path: Path, cases: str) -> Path:
    path = tmp_path / "report.xml"
    path.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>')
    return path


def test_a_junit_report_gives_passes_fails_or_why_nothing_ran(tmp_path):
    ok = '<testcase name="test_a"/><testcase name="test_b"/><testcase name="test_c"><skipped message="x"/></testcase>'
    assert verdict_of_report("1.0", _report(tmp_path, ok)) == Verdict("1.0", "passes", "2 passed, 1 skipped")
    bad = ('<testcase name="test_a"/><testcase name="test_b"><failure message="no"/></testcase>'
           '<testcase name="test_c"><error message="boom"/></testcase>')
    assert verdict_of_report("1.0", _report(tmp_path, bad)) == Verdict(
        "1.0", "fails", "2 failed (test_b, test_c), 1 passed")
    skipped = '<testcase name="test_a"><skipped message="could not import \'anthropic\'"/></testcase>'
    assert verdict_of_report("1.0", _report(tmp_path, skipped)) == Verdict(
        "1.0", "error", "every test skipped: could not import 'anthropic'")
    unimported = ('<testcase classname="" name="tests.test_x"><error message="collection failure">'
                  "tests/test_x.py:3: in &lt;module&gt;\nE   ImportError: cannot import name 'omit'</error></testcase>")
    assert verdict_of_report("1.0", _report(tmp_path, unimported)) == Verdict(
        "1.0", "error", "tests.test_x does not import (ImportError: cannot import name 'omit')")
    assert verdict_of_report("1.0", _report(tmp_path, unimported + '<testcase name="test_a"/>')) == Verdict(
        "1.0", "fails", "tests.test_x does not import (ImportError: cannot import name 'omit'); 1 passed")
    whole = ('<testcase classname="" name="tests.test_y"><skipped type="pytest.skip" message="collection skipped">'
             "('tests/adapter_checks.py', 86, \"Skipped: pydantic_ai is not installed (No module named 'x')\")"
             "</skipped></testcase>")
    assert verdict_of_report("1.0", _report(tmp_path, whole)) == Verdict(
        "1.0", "error", "every test skipped: pydantic_ai is not installed (No module named 'x')")
    assert verdict_of_report("1.0", tmp_path / "none.xml") == Verdict(
        "1.0", "error", "pytest wrote no report (FileNotFoundError)")


def test_verdicts_are_recorded_beside_the_other_libraries_and_shown_for_a_person(tmp_path):
    path = tmp_path / "verified.json"
    path.write_text(json.dumps({"other": {"checked": "2026-01-01", "releases": {"9": {"outcome": "passes",
                                                                                      "detail": "1 passed"}}}}))
    record({"lib": [Verdict("1.0", "error", "does not install: x"), Verdict("1.5", "fails", "1 failed (test_a)"),
                    Verdict("2.0", "passes", "3 passed")]}, path, datetime.date(2026, 12, 4))
    doc = json.loads(path.read_text())
    assert doc["other"]["checked"] == "2026-01-01"
    assert doc["lib"] == {"checked": "2026-12-04", "releases": {
        "1.0": {"outcome": "error", "detail": "does not install: x"},
        "1.5": {"outcome": "fails", "detail": "1 failed (test_a)"}, "2.0": {"outcome": "passes", "detail": "3 passed"}}}
    assert adapters.verified_text(doc["lib"], "lib") == "lib 2.0 (fails on 1.5; 1.0: did not run)"
    assert adapters.verified_text(doc["other"], "other") == "other 9"
    path.write_text("{")
    with pytest.raises(UsageError, match=f"{path}: not JSON"):
        record({}, path)
    assert path.read_text() == "{"


def test_the_docs_table_is_written_between_its_markers_only():
    doc = {"openai": {"checked": "2026-12-04", "releases": {"3.57.0": {"outcome": "passes", "detail": "1 passed"}}}}
    text = f"before\n{DOCS_START}\nold table\n{DOCS_END}\nafter\n"
    written = render_docs(text, doc)
    assert written.startswith(f"before\n{DOCS_START}\n| library | targets | verified on | checked |\n")
    assert "| openai | `openai-stream-state`, `openai-client`, " in written
    assert "`openai-parsed-arguments` | 3.57.0 | 2026-12-04 |\n" + DOCS_END + "\nafter\n" in written and "old table" not in written
    with pytest.raises(UsageError, match="docs/x.md: no .* markers"):
        render_docs("no markers", doc, "docs/x.md")


def test_docs_adapters_md_shows_what_verified_json_holds():
    text = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    doc = json.loads(adapters.VERIFIED.read_text(encoding="utf-8"))
    assert render_docs(text, doc) == text, "docs/adapters.md is stale: run `toolfuzz verify --write`"
    # Every library an adapter is built on has been verified on some release; an engine in a built-in
    # environment runs the release its recipe pins (harness/corpus/verification.py).
    assert sorted(doc) == sorted({a.distributions[0] for a in adapters.KNOWN if not a.environment})


def test_an_adapter_s_tests_run_where_a_real_release_is_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path / "envs"))
    (lib,) = [lib for lib in libraries(ROOT) if lib.distribution == "sseclient-py"]
    said: list[str] = []
    found = verify(lib, "1.9.0", ROOT, said.append)
    assert found.outcome == "passes" and found.detail.endswith(" passed"), found
    assert said[-1] == f"sseclient-py 1.9.0: passes: {found.detail}"
    assert [p.name for p in (tmp_path / "envs").iterdir()] == ["verify-sseclient-py-1.9.0"]
    # A release that does not install is said so, and nothing is left behind.
    missing = Library("toolfuzz-no-such-package-zz", (), (), lib.tests)
    gone = verify(missing, "1.0", ROOT)
    assert gone.outcome == "error" and gone.detail.startswith("does not install: environment "), gone
    assert [p.name for p in (tmp_path / "envs").iterdir()] == ["verify-sseclient-py-1.9.0"]


def _pinned(constraints: str) -> dict[str, str]:
    """``name==version`` of each release a constraints file pins, by name."""
    lines = (ROOT / "constraints" / constraints).read_text().splitlines()
    return {line.partition("==")[0]: line.strip() for line in lines}


def test_the_other_libraries_go_in_at_the_releases_ci_pins_beside_the_one_tried(environments_asked):
    asked = environments_asked
    found = {lib.distribution: lib for lib in libraries(ROOT)}
    assert verify(found["httpx-sse"], "0.4.0", ROOT).detail == "does not install: not made in this test"
    pinned = _pinned("ci.txt")
    # At CI's releases first; where those do not install beside the release tried, at the ones pip picks.
    assert asked == [("verify-httpx-sse-0.4.0", ["httpx-sse==0.4.0", pinned["httpx"], "pytest>=8", "pytest-timeout>=2.3"]),
                     ("verify-httpx-sse-0.4.0", ["httpx-sse==0.4.0", "httpx", "pytest>=8", "pytest-timeout>=2.3"])]
    # llama-index-llms-openai is pinned in a file of its own, beside an openai<3.
    verify(found["llama-index-llms-openai"], "0.4.0", ROOT)
    llama = _pinned("llama-index.txt")
    assert llama["openai"] in asked[-2][1] and llama["openai"].startswith("openai==2.")
