"""The HTML report of a real run, as headless Chromium builds its page: the plot and one entry per root cause.

Chromium is a program, not a Python package: .ci/run installs Debian's, so under CI a missing one fails
(tests/adapter_checks.py); elsewhere the test skips, saying how to install it.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from toolfuzz.cli import main
from toolfuzz.outputs.report_html import SEVERITY_ORDER

from tests.adapter_checks import unavailable

#: Without these, Chromium reaches for the network (and for a display, a GPU and a sandbox), which a CI
#: runner and this project's machines do not give it.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[dict, Path]:
    """A short run of the self-test targets, with its report written by ``--report``, and its JSON summary."""
    folder = tmp_path_factory.mktemp("run")
    report = folder / "report.html"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["run", "--target", "selftest", "--max-examples", "20", "--seed", "1", "--in-process",
                     "--findings", str(folder / "findings"), "--report", str(report), "--json"])
    assert code == 1, out.getvalue()[-2000:]
    return json.loads(out.getvalue()), report


@pytest.fixture(scope="module")
def chromium() -> str:
    """Chromium's path, looked for before the run (a skip need not wait for it)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        unavailable("chromium is not installed (apt-get install -y --no-install-recommends chromium)")
    return found


class Page(HTMLParser):
    """What the test looks for in the DOM Chromium dumps."""

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[str] = []
        self.entries: dict[str, int] = {}
        self.plots: list[int] = []
        self.open: list[str] = []
        self.urls: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        self.urls += [v for k, v in attrs.items() if k in ("src", "href") and v]
        if tag == "section" and (attrs.get("id") or "").startswith("sev-"):
            self.groups.append(attrs["id"].removeprefix("sev-"))
        elif tag == "details":
            self.entries[self.groups[-1]] = self.entries.get(self.groups[-1], 0) + 1
            if "open" in attrs:
                self.open.append(self.groups[-1])
        elif tag == "svg":
            self.plots.append(0)
        elif tag == "circle":
            self.plots[-1] += 1


def test_the_report_renders_in_chromium_with_its_plot_and_one_entry_per_root_cause(chromium, run, tmp_path):
    summary, report = run
    dumped = subprocess.run([chromium, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                             report.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert dumped.returncode == 0 and "</html>" in dumped.stdout, dumped.stderr[-2000:]
    page = Page()
    page.feed(dumped.stdout)
    divergences = [d for t in summary["targets"] for d in t["divergences"]]
    assert divergences
    # Both plots (against seconds and against examples) mark every root cause the run timed.
    timed = sum(1 for d in divergences if d.get("first_seen"))
    assert page.plots == [timed, timed], page.plots
    assert page.groups == [s for s in SEVERITY_ORDER if s != "ungraded"]
    assert sum(page.entries.values()) == len(divergences)
    assert page.entries == {s: n for s in page.groups if (n := sum(d["severity"] == s for d in divergences))}
    # Closed until opened (no script needed), and nothing fetched: no URL, no script.
    assert page.open == [] and page.urls == [] and "script" not in page.tags
