"""Which releases each library adapter is verified on: its tests, run where that release is installed.

Theory of operation
-------------------

An adapter is written against one release of its library and meant to load
and judge correctly on every release of the last two years.  That is checked,
not assumed: for each library (the first distribution an adapter in
:data:`toolfuzz.targets.adapters.KNOWN` needs), a sample of its releases
(oldest, middle and newest of the window :mod:`toolfuzz.corpus.releases`
chooses, by default) is installed, each in an environment of its own
(``verify-<library>-<version>``, :mod:`toolfuzz.targets.environments`) with the
adapter's other libraries and what its test modules import (at the releases
CI pins them to beside it, constraints/, or where those do not fit the release
tried, at the ones pip picks), and pytest.  The
adapter's test modules (the files under ``tests/targets/adapters`` that import
one of its modules) then run there, from the source folder toolfuzz is
installed from, with ``CI`` unset, so a test of a library that is absent skips
instead of failing.

A release is ``passes`` when at least one test passed and none failed;
``fails`` names the tests that failed and the test modules that did not
import; ``error`` says why nothing ran (the release does not install, no test
module imports, or every test skipped).  The verdicts are kept in
``targets/adapters/verified.json`` (written whole, atomically), which
``toolfuzz targets`` reads for its "verified on" column, and rendered into the
table between the ``verified`` markers of docs/adapters.md.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.errors import UsageError
from toolfuzz.targets import environments
from toolfuzz.targets.adapters import KNOWN, VERIFIED, Adapter, verified_text
from toolfuzz.vocabulary import version_key

__all__ = ["Library", "Verdict", "libraries", "sample", "verify", "verdict_of_report", "record", "render_docs",
           "RELEASES", "DOCS_START", "DOCS_END"]

#: Releases tried per library: the oldest, the middle and the newest of the window.
RELEASES = 3
DOCS_START = "<!-- verified: written by `toolfuzz verify --write`; do not edit by hand -->"
DOCS_END = "<!-- end verified -->"
_TESTS = Path("tests", "targets", "adapters")
#: What every verification environment has beside the libraries: what the adapters' tests run with.
_TEST_REQUIREMENTS = ("pytest>=8", "pytest-timeout>=2.3")
#: Test modules of the adapters' own tables (each target's scope), which need no library: they name every target,
#: and taken for a library's tests they would install every other library beside it.
_TABLE_TESTS = frozenset({"test_scopes.py"})


@dataclass(frozen=True)
class Library:
    #: The distribution whose releases are tried.
    distribution: str
    #: The targets its adapters define.
    targets: tuple[str, ...]
    #: Installed beside it (at CI's releases where they fit): the adapters' other libraries and what their test
    #: modules import.
    others: tuple[str, ...]
    #: The test modules, relative to the source folder.
    tests: tuple[str, ...]
    #: The oldest release every adapter on it supports ("" when one supports them all): none older is tried.
    since: str = ""


@dataclass(frozen=True)
class Verdict:
    version: str
    #: ``passes``, ``fails`` or ``error``.
    outcome: str
    #: "41 passed, 2 skipped", the tests that failed, or why nothing ran.
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"outcome": self.outcome, "detail": self.detail}


def libraries(source: Path) -> list[Library]:
    """Every library an adapter is built on, with the test modules under ``source`` that import its adapters."""
    folder = source / _TESTS
    texts = {p: p.read_text(encoding="utf-8") for p in sorted(folder.glob("test_*.py")) if p.name not in _TABLE_TESTS}
    grouped: dict[str, list[Adapter]] = {}
    for adapter in KNOWN:
        # An engine in a built-in environment runs the release its recipe pins, and installs as the recipe says
        # (sglang without its dependencies): a sweep of releases installed plainly is not how it runs.
        if not adapter.environment:
            grouped.setdefault(adapter.distributions[0], []).append(adapter)
    found = []
    for distribution, group in grouped.items():
        tests = [p for p, text in texts.items() if any(_covers(text, a) for a in group)]
        # A test module may check other adapters beside these (the partial parsers are tested side by side):
        # their libraries go in too, so that its tests of this one do not skip.
        # Not an engine's, which installs only as its environment's recipe says (see above).
        beside = {d for a in KNOWN if not a.environment and any(_covers(texts[p], a) for p in tests)
                  for d in a.distributions}
        beside |= {d for a in group for d in a.distributions}
        beside.discard(distribution)
        since = min((a.since for a in group), key=version_key) if all(a.since for a in group) else ""
        found.append(Library(distribution, tuple(n for a in group for n in a.names),
                             tuple(sorted(beside)), tuple(str(p.relative_to(source)) for p in tests), since))
    return found


def _covers(text: str, adapter: Adapter) -> bool:
    """Whether a test module tests ``adapter``: it imports the adapter's module or names one of its targets."""
    return adapter.module in text or any(f'"{name}"' in text for name in adapter.names)


def sample(versions: list[str], count: int = RELEASES, since: str = "") -> list[str]:
    """``count`` releases spread evenly over ``versions`` (oldest first), both ends included, none before ``since``."""
    if count < 1:
        raise UsageError(f"--releases {count}: must be 1 or more")
    if since:
        versions = [v for v in versions if version_key(v) >= version_key(since)]
    if len(versions) <= count:
        return list(versions)
    if count == 1:
        return [versions[-1]]
    return sorted({versions[round(i * (len(versions) - 1) / (count - 1))] for i in range(count)},
                  key=versions.index)


def verdict_of_report(version: str, report: Path) -> Verdict:
    """The verdict a pytest JUnit XML report gives."""
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError) as e:
        return Verdict(version, "error", f"pytest wrote no report ({type(e).__name__})")
    passed, skipped, failed, reasons, unimported = 0, 0, [], [], []
    for case in root.iter("testcase"):
        failure, error, skip = case.find("failure"), case.find("error"), case.find("skipped")
        bad = failure if failure is not None else error
        if bad is not None and bad.get("message") == "collection failure":
            # A test module that does not import there: the release lacks what the adapter imports.
            said = [x[1:].strip() for x in (bad.text or "").splitlines() if x.startswith("E ")]
            unimported.append(f"{case.get('name', '?')} does not import ({said[-1] if said else '?'})")
        elif bad is not None:
            failed.append(case.get("name", "?"))
        elif skip is not None:
            skipped += 1
            said = skip.get("message", "")
            # A module skipped whole says only "collection skipped"; why is in the text, as
            # ('path', line, "Skipped: reason").
            whole = re.search(r"Skipped: (.*?)[\"']\)\s*$", skip.text or "", re.S)
            reasons.append(whole.group(1) if said == "collection skipped" and whole else said)
        else:
            passed += 1
    if failed:
        names = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
        return Verdict(version, "fails", f"{len(failed)} failed ({names}), {passed} passed"
                       + "".join(f"; {u}" for u in unimported))
    if unimported:
        return Verdict(version, "error" if passed == 0 else "fails",
                       ("; ".join(unimported) + (f"; {passed} passed" if passed else ""))[:300])
    if passed == 0:
        why = next((r for r in reasons if r), "no test ran")
        return Verdict(version, "error", f"every test skipped: {why}"[:300])
    return Verdict(version, "passes", f"{passed} passed" + (f", {skipped} skipped" if skipped else ""))


def verify(library: Library, version: str, source: Path, say: Callable[[str], None] = lambda text: None) -> Verdict:
    """Run ``library``'s adapter tests with ``version`` of it installed, in an environment of its own."""
    name = environments.name_for("verify", library.distribution, version)
    pins = _pins(source, library.distribution)
    # The other libraries at the releases CI tests them on: the newest of each would test their newest
    # combination as well, and a failure would not say whose it is.
    pinned = [f"{d}=={pins[d.lower()]}" if d.lower() in pins else d for d in library.others]
    try:
        env = environments.ensure(name, [f"{library.distribution}=={version}", *pinned, *_TEST_REQUIREMENTS], say)
    except UsageError:
        # An old release may need older ones (langchain-anthropic 0.3 wants anthropic<1): pip then picks them.
        try:
            env = environments.ensure(name, [f"{library.distribution}=={version}", *library.others,
                                             *_TEST_REQUIREMENTS], say)
        except UsageError as e:
            return Verdict(version, "error", f"does not install: {e}"[:300])
    # The strict mode CI runs under would fail what this release lacks; here that skips and shows in the count.
    child_env = {k: v for k, v in os.environ.items() if k not in ("CI", "TOOLFUZZ_LLAMA_PYTHON", "PYTHONPATH")}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp, "report.xml")
        subprocess.run([str(env.python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
                        f"--junitxml={report}",
                        *library.tests], cwd=source, env=child_env, capture_output=True, text=True)
        found = verdict_of_report(version, report)
    say(f"{library.distribution} {version}: {found.outcome}: {found.detail}")
    return found


def _pins(source: Path, distribution: str) -> dict[str, str]:
    """The releases CI pins beside ``distribution``, by lowercase name: those of the constraints file that pins it
    (constraints/ci.txt first; llama-index has a file of its own), none when no file does."""
    files = sorted((source / "constraints").glob("*.txt"), key=lambda p: (p.name != "ci.txt", p.name))
    for path in files:
        lines = path.read_text(encoding="utf-8").splitlines()
        pins = {name.strip().lower(): pin.strip() for name, sep, pin in (x.partition("==") for x in lines)
                if sep and not name.lstrip().startswith("#")}
        if distribution.lower() in pins:
            return pins
    return {}


def record(found: dict[str, list[Verdict]], path: Path = VERIFIED, today: datetime.date | None = None) -> None:
    """Keep each library's verdicts in ``path`` (the others as they were), written whole."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        doc = {}
    except ValueError as e:
        raise UsageError(f"{path}: not JSON ({e}); fix or remove it") from None
    when = (today or datetime.date.today()).isoformat()
    for distribution, verdicts in found.items():
        doc[distribution] = {"checked": when, "releases": {v.version: v.to_json() for v in verdicts}}
    write_atomic(path, json.dumps(dict(sorted(doc.items())), indent=2) + "\n")


def render_docs(text: str, doc: dict, where: str = "docs/adapters.md") -> str:
    """``text`` with the table between the verified markers written from ``doc`` (verified.json's content)."""
    start, end = text.find(DOCS_START), text.find(DOCS_END)
    if start < 0 or end < start:
        raise UsageError(f"{where}: no {DOCS_START!r} ... {DOCS_END!r} markers to write the table between")
    # An adapter that needs a later release than the library's others says so once, after its targets.
    names = {lib: [", ".join(f"`{n}`" for n in a.names) + (f" ({a.since} and later: {a.why})" if a.since else "")
                   for a in KNOWN if a.distributions[0] == lib] for lib in doc}
    rows = ["| library | targets | verified on | checked |", "|---|---|---|---|"]
    for lib, entry in sorted(doc.items()):
        targets = ", ".join(names.get(lib, []))
        rows.append(f"| {lib} | {targets} | {verified_text(entry).replace('|', '/')} | {entry.get('checked', '?')} |")
    return text[:start] + DOCS_START + "\n" + "\n".join(rows) + "\n" + text[end:]
