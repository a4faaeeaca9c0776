"""Findings on disk: one fixture file per signature, written atomically, the smallest kept.

:class:`FindingWriter` is how a run's findings get there: it consumes the
run's events (:mod:`toolfuzz.engine.events`) and writes each one it is told of.
"""

from __future__ import annotations

import hashlib
import platform
import re
from pathlib import Path
from typing import Any

from toolfuzz import __version__
from toolfuzz.judge.child import ISOLATED_KINDS
from toolfuzz.judge.compare import KINDS
from toolfuzz.corpus.fixtures import Fixture, FixtureError, dumps, load, write_atomic
from toolfuzz.engine.events import Event, Finding, Found
from toolfuzz.errors import UsageError
from toolfuzz.identity import CrashState

__all__ = ["fixture_for", "path_for", "replayed_fixture", "target_folder", "save", "save_fixture", "FindingWriter"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")
#: A target's folder may keep the @ of ``NAME@ENVIRONMENT``.
_UNSAFE_FOLDER = re.compile(r"[^A-Za-z0-9._+@-]+")


def _digest(text: str) -> str:
    """Eight hex digits of ``text``: what tells apart two names a slug made the same or cut short."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _slug(text: str, limit: int = 80, safe: re.Pattern[str] = _UNSAFE) -> str:
    slug = safe.sub("-", text).strip("-") or "target"
    if len(slug) > limit:
        slug = f"{slug[: limit - 9]}-{_digest(text)}"
    return slug


def target_folder(name: str) -> str:
    """The folder a target's findings go in: its name where that is safe as a folder name, else a slug of it
    with a digest of the name, so that no two names share a folder (``a/b.py:f`` and ``a-b.py-f``) and none
    leaves ``root`` (``..``)."""
    slug = _slug(name, safe=_UNSAFE_FOLDER).strip(".")
    if slug == name:
        return slug
    return f"{slug[:70] or 'target'}-{_digest(name)}"


def path_for(root: Path, finding: Finding) -> Path:
    """``<root>/<target>/<kind>--<features>.json``: a person can tell what it is from the name.

    A ``raised`` finding's exception type goes between, with a digest of its whole crash state where that
    names frames (``raised--KeyError-1a2b3c4d--<features>.json``): two raises of one type from other places
    are two files, and the path still fits on a line a person copies (the state itself is in the fixture).
    """
    features = "+".join(sorted(finding.features)) or "plain"
    state = f"--{_state_slug(finding.state)}" if finding.state else ""
    return root / target_folder(finding.target.name) / f"{finding.divergence.kind}{state}--{_slug(features, 120)}.json"


def _state_slug(state: CrashState) -> str:
    if not state.frames:
        return _slug(state.error, 60)
    return f"{_slug(state.error, 40)}-{_digest(str(state))}"


def fixture_for(finding: Finding) -> Fixture:
    target = finding.target
    kind = finding.divergence.kind
    # What a target that took its process down did is the death, not an empty list of calls.
    died = kind in ISOLATED_KINDS
    observed: dict[str, Any] = {
        target.name: {
            "verdict": "diverges",
            "kind": kind,
            "detail": finding.divergence.detail,
            "observation": {kind: finding.divergence.detail} if died else finding.observation.to_json(),
            "level": target.level,
            "version": target.version,
            "grade": finding.grade.to_json(),
        }
    }
    output = finding.observation.output
    if output:
        observed[target.name]["output"] = output.to_json()
    found = {
        "by": "toolfuzz run",
        "signature": finding.signature,
        "seed": finding.seed,
        "toolfuzz": __version__,
        "python": platform.python_version(),
        "versions": {target.name: target.version} if target.version else {},
    }
    if finding.state:
        found["crash_state"] = str(finding.state)
    if finding.case.origin:
        found["origin"] = {"grown from": finding.case.origin}
    if finding.unshrunk:
        found["unshrunk"] = True
    return Fixture(case=finding.case, name=f"{target.name}: {kind}", found=found, observed=observed,
                   description=f"{KINDS[kind]}. {finding.divergence.detail}")


def replayed_fixture(finding: Finding, origin: dict[str, Any]) -> Fixture:
    """The fixture of a divergence met replaying a fixture found elsewhere (an imported capture, say): as a run's,
    with ``found`` saying so and keeping where the case came from (``origin``: the replayed fixture's ``found``)."""
    fixture = fixture_for(finding)
    found = {**fixture.found, "by": "toolfuzz replay", "origin": origin}
    found.pop("seed", None)  # nothing was drawn
    return Fixture(case=fixture.case, name=fixture.name, description=fixture.description, observed=fixture.observed,
                   found=found)


def save(root: Path, finding: Finding) -> tuple[Path, str]:
    """Write the finding's fixture unless one as small is already there; say which happened."""
    return save_fixture(path_for(root, finding), fixture_for(finding))


def save_fixture(path: Path, fixture: Fixture) -> tuple[Path, str]:
    """Write ``fixture`` at ``path`` unless one as small is already there: ``written`` or ``kept``."""
    if path.exists():
        try:
            old = load(path)
        except FixtureError:
            old = None  # an unreadable file is replaced, not trusted
        if old is not None and old.case.size <= fixture.case.size:
            return path, "kept"
    write_atomic(path, dumps(fixture))
    return path, "written"


class FindingWriter:
    """Consumes a run's events: each finding written under ``root``, and where it went remembered."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Every finding of the run, in order, with its file and ``written`` or ``kept``.
        self.saved: list[tuple[Finding, Path, str]] = []
        self._where: dict[str, tuple[Path, str]] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, Found):
            try:
                path, what = save(self.root, event.finding)
            except OSError as e:  # the folder was checked before the run (toolfuzz.errors.need_writable)
                raise UsageError(f"{path_for(self.root, event.finding)}: cannot write the finding: "
                                 f"{e.strerror or e}") from None
            # A finding with fewer features replaces the ones it is more general than: their files,
            # written earlier in this run, go (a file that was there before the run is left alone).
            for old in event.replaces:
                if old in self._where and self._where[old][1] == "written" and self._where[old][0] != path:
                    self._where[old][0].unlink(missing_ok=True)
                self._where.pop(old, None)
            self.saved = [s for s in self.saved if s[0].signature not in event.replaces]
            self.saved.append((event.finding, path, what))
            self._where[event.finding.signature] = (path, what)

    def where(self, finding: Finding) -> tuple[Path, str]:
        """The file the latest finding with this one's signature was written to (or kept in)."""
        return self._where[finding.signature]
