"""Replaying fixture files against targets: a matrix of fixtures by targets, and what each cell means.

Every fixture is run on the reference (which must agree with the expected
outcome, or the fixture itself is wrong) and on a set of targets: the ones
given with ``--target``, or else the built-in targets the fixture records in
``observed``.  A recorded target that is not run is a *skipped* cell, never
an error: a fixture found in somebody's library travels without the library.

A cell's *verdict* says whether it is what the fixture leads us to expect:

* ``ok``          agrees, and nothing else was recorded;
* ``fixed``       recorded as diverging, now agrees (a library fixed its bug);
* ``still fails`` recorded as diverging, still diverges with the recorded root
  cause: its kind, and for a raise, its crash state;
* ``changed``     recorded as diverging, still diverges, but no longer with the
  recorded root cause (another kind, or another raise: another exception, or
  the same one raised somewhere else);
* ``unexpected``  diverges (or raises, times out, is blocked) and was not
  recorded as diverging; on the reference, anything but agreement.
* ``skipped``     recorded but not run.

Only ``unexpected`` cells fail a replay.  The reference is never excused by
a recorded divergence: a fixture it disagrees with is a fixture to fix.

Fixed means the recorded root cause is gone, as ClusterFuzz decides it: a
raise is known by its crash state (``toolfuzz.judge.crash_state.crash_state``),
so a release that raises something else, in another function, has not kept
the bug; it is ``changed``, with both crash states shown
(:class:`RootCause`, which ``toolfuzz bisect`` follows too).

A fixture file that cannot be read or used is a row of its own
(:class:`Unreadable`), with the reason, and the others run: one broken file
does not hide what the rest of a corpus says.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolfuzz import __version__
from toolfuzz.engine.events import Finding
from toolfuzz.identity import CrashState
from toolfuzz.judge.compare import Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.errors import Exit, UsageError
from toolfuzz.corpus.fixtures import Fixture, FixtureError, history_text, iter_fixture_paths, load, printable
from toolfuzz.judge.child import ISOLATED_KINDS, observe_isolated
from toolfuzz.judge.feeding import chunks_of
from toolfuzz.judge.sandbox import observe
from toolfuzz.strategies.cases import PLAIN_FEATURES
from toolfuzz.targets.base import Target
from toolfuzz.targets.reference import ASSEMBLERS
from toolfuzz.targets.registry import REFERENCE, REFERENCE_SSE, builtin_targets
from toolfuzz.vocabulary import Case, text_format

__all__ = ["VERDICTS", "RootCause", "Loaded", "Unreadable", "Cell", "Report", "divergent", "load_fixtures",
           "read_fixtures", "replay", "state_of"]

REFERENCE_NAME = REFERENCE.name
VERDICTS = ("ok", "fixed", "still fails", "changed", "unexpected", "skipped")
#: What a cell did, from the first divergence kind: these kinds have their own word.
_STATE_OF_KIND = {"blocked_action": "blocked", "timed_out": "timeout", "raised": "raises"}


@dataclass(frozen=True)
class RootCause:
    """What a fixture records a target getting wrong: the kind (None: any divergence is it) and, where one was
    recorded, the crash state it was raised at."""

    kind: str | None = None
    state: CrashState | None = None

    def verdict(self, divergences: list[Divergence] | tuple[Divergence, ...]) -> str:
        """``passes`` (no divergence), ``fails`` (this root cause is among them) or ``changed`` (the target diverges
        another way: another kind, or a raise at another crash state)."""
        if not divergences:
            return "passes"
        if self.kind is None or any(d.kind == self.kind and (not self.state or d.state == self.state)
                                    for d in divergences):
            return "fails"
        return "changed"


@dataclass(frozen=True)
class Loaded:
    """A fixture file, loaded and checked, with the label its matrix row shows."""

    path: Path
    fixture: Fixture
    label: str = ""

    def recorded(self, target: str) -> tuple[bool, str | None]:
        """Whether ``target`` is recorded as diverging on this fixture, and with which kind."""
        entry = self.fixture.observed.get(target) or {}
        return entry.get("verdict") == "diverges", entry.get("kind")

    def root_cause(self, target: str) -> RootCause:
        """The root cause recorded for ``target``: its kind, and the crash state its observation recorded (or,
        for a fixture written before observations held one, the one ``found`` records for the target it was
        found on)."""
        entry = self.fixture.observed.get(target) or {}
        kind = entry.get("kind") if isinstance(entry.get("kind"), str) else None
        state = self.fixture.observed_state(target)
        signature = self.fixture.found.get("signature")
        if state is None and isinstance(signature, str) and signature.startswith(f"{target}/{kind}"):
            state = self.fixture.crash_state
        return RootCause(kind, state)


@dataclass(frozen=True)
class Unreadable:
    """A fixture file that cannot be read or used, and why: the field at fault and what is wrong with it."""

    path: Path
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"

    def to_json(self) -> dict[str, Any]:
        return {"fixture": str(self.path), "problem": self.problem}


@dataclass(frozen=True)
class Cell:
    fixture: Loaded
    target: str
    state: str  # ok | diverges | raises | timeout | blocked | skipped
    verdict: str  # one of VERDICTS
    divergences: tuple[Divergence, ...] = ()
    recorded: bool = False
    recorded_kind: str | None = None
    #: The crash state the recorded divergence was raised at, where one was recorded.
    recorded_state: CrashState | None = None
    reason: str = ""  # why a cell was skipped
    seconds: float = 0.0
    version: str = ""  # of the target as it ran

    @property
    def kind(self) -> str | None:
        return self.divergences[0].kind if self.divergences else None

    @property
    def detail(self) -> str:
        return self.divergences[0].detail if self.divergences else self.reason

    @property
    def unexpected(self) -> bool:
        return self.verdict == "unexpected"

    @property
    def shown(self) -> Divergence | None:
        """The divergence to show: the one of the recorded kind, where there is one, else the first."""
        return next((d for d in self.divergences if d.kind == self.recorded_kind), None) or (
            self.divergences[0] if self.divergences else None)

    def recorded_note(self) -> str:
        """`` (recorded: kind)`` for a cell recorded as diverging, and for a raise that moved both crash states:
        what a person compares to see that the root cause is another."""
        if not self.recorded or not self.recorded_kind:
            return ""
        shown = self.shown
        if self.recorded_state and shown is not None and shown.kind == self.recorded_kind and shown.state \
                and shown.state != self.recorded_state:
            return f" (now at {shown.state}; recorded: {self.recorded_kind} at {self.recorded_state})"
        return f" (recorded: {self.recorded_kind})"

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "fixture": str(self.fixture.path),
            "target": self.target,
            "state": self.state,
            "verdict": self.verdict,
            "kind": self.kind,
            "detail": self.detail or None,
            "divergences": [{"kind": d.kind, "detail": d.detail, **({"crash_state": str(d.state)} if d.state else {})}
                            for d in self.divergences],
        }
        if self.recorded:
            # The question a reader of a recorded finding asks: is it still there?
            doc["recorded"] = {"kind": self.recorded_kind,
                               "reproduces": self.verdict == "still fails",
                               "fixed": self.verdict == "fixed"}
            if self.recorded_state:
                doc["recorded"]["crash_state"] = str(self.recorded_state)
            version = recorded_version(self.fixture.fixture, self.target)
            if version:
                doc["recorded"]["version"] = version
            if self.verdict == "fixed":
                doc["fixed_in"] = fixed_in(self)
        return doc


@dataclass(frozen=True)
class Report:
    fixtures: tuple[Loaded, ...]
    #: Column order: the reference first, then the targets as they first appear.
    targets: tuple[str, ...]
    cells: tuple[Cell, ...]
    #: name -> (level, version) for the targets that ran.
    levels: dict[str, tuple[str, str]]
    #: The fixture files that could not be read, each a row of its own.
    unreadable: tuple[Unreadable, ...] = ()

    def cell(self, fixture: Loaded, target: str) -> Cell | None:
        for c in self.cells:
            if c.fixture is fixture and c.target == target:
                return c
        return None

    def counts(self) -> dict[str, int]:
        counts = {v: 0 for v in VERDICTS}
        for c in self.cells:
            counts[c.verdict] += 1
        return counts

    @property
    def exit_code(self) -> int:
        """1 when a cell is unexpected (the news a replay is for), else 2 when a fixture could not be read."""
        if any(c.unexpected for c in self.cells):
            return Exit.FOUND
        return Exit.USAGE if self.unreadable else Exit.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "toolfuzz": __version__,
            "fixtures": [{"path": str(f.path), "name": f.fixture.name, "label": f.label,
                          "statement": f.fixture.statement or None} for f in self.fixtures],
            "targets": [{"name": t, "level": self.levels[t][0] if t in self.levels else None,
                         "version": self.levels[t][1] if t in self.levels else None} for t in self.targets],
            "cells": [c.to_json() for c in self.cells],
            "unreadable": [u.to_json() for u in self.unreadable],
            "summary": {**self.counts(), "unreadable": len(self.unreadable), "exit": self.exit_code},
        }


def state_of(divergences: list[Divergence]) -> str:
    if not divergences:
        return "ok"
    return _STATE_OF_KIND.get(divergences[0].kind, "diverges")


def recorded_version(fixture: Fixture, target: str) -> str:
    """The version of ``target`` a fixture was recorded with (``observed``, else ``found.versions``), or ``""``."""
    version = (fixture.observed.get(target) or {}).get("version")
    versions = fixture.found.get("versions")
    if not version and isinstance(versions, dict):
        version = versions.get(target)
    return version if isinstance(version, str) else ""


def fixed_in(cell: Cell) -> str:
    """``fixed in <target> <version it ran as> (recorded on <version>)``: what a fixed cell tells a maintainer."""
    return fixed_text(cell.fixture.fixture, cell.target, cell.version)


def fixed_text(fixture: Fixture, target: str, version: str) -> str:
    recorded = recorded_version(fixture, target)
    bisected = fixture.history.get(target)
    return (f"fixed in {target} {version or '(unversioned)'}" + (f" (recorded on {recorded})" if recorded else "")
            + (f"; bisected: fails on {history_text(bisected)}" if bisected else ""))


# -- loading -----------------------------------------------------------------

def load_fixtures(paths: list[str]) -> list[Loaded]:
    """Every fixture under ``paths``, loaded and checked before anything runs; one UsageError for the first bad one."""
    loaded, unreadable = read_fixtures(paths)
    if unreadable:
        raise UsageError(str(unreadable[0]))
    return loaded


def read_fixtures(paths: list[str]) -> tuple[list[Loaded], list[Unreadable]]:
    """Every fixture under ``paths``, loaded and checked before anything runs, and those that cannot be.

    A path given that is not there, or a folder with no fixture in it, is a UsageError: a mistyped argument,
    not a fixture to report.
    """
    found: list[Path] = []
    seen: set[str] = set()
    for given in paths:
        if not os.path.lexists(given):
            raise UsageError(f"{given}: cannot read: {os.strerror(errno.ENOENT)}")
        expanded = iter_fixture_paths([given])
        if not expanded:
            raise UsageError(f"{given}: no *.json fixture files in this folder")
        for p in expanded:
            key = os.path.realpath(p)
            if key not in seen:  # a file given twice, or inside a folder also given, runs once
                seen.add(key)
                found.append(p)
    loaded, unreadable = [], []
    for path in found:
        try:
            fixture = load(path)
            _check(path, fixture)
        except FixtureError as e:
            unreadable.append(Unreadable(path, f"{e.field}: {e.message}" if e.field else e.message))
            continue
        loaded.append(Loaded(path, fixture))
    return _labelled(loaded), unreadable


def _check(path: Path, fixture: Fixture) -> None:
    """What loading leaves to its users: tool schemas that compile, and recorded verdicts we can read."""
    try:
        # Also imports whatever schema validation needs now, before any target
        # runs under the audit hook that refuses writes (a first import may
        # write a bytecode cache).
        # A model's text has no assembler of its own; its tools are compiled all the same.
        dialect = "openai-chat" if text_format(fixture.case.dialect) else fixture.case.dialect
        ASSEMBLERS[dialect](fixture.case.tools, fixture.case.limits, events=False)
    except ValueError as e:
        raise FixtureError(str(path), "tools", str(e)) from None
    for target, entry in fixture.observed.items():
        for key in ("verdict", "kind"):
            if key in entry and not isinstance(entry[key], str):
                raise FixtureError(str(path), f"observed.{target}.{key}", "must be a string")


MAX_LABEL = 44


def _labelled(loaded: list[Loaded]) -> list[Loaded]:
    """Row labels: the fixture's name, or its path when names repeat, shortened in the middle to fit."""
    names = [f.fixture.name for f in loaded]
    repeated = {n for n in names if names.count(n) > 1}
    base = _common_parent([f.path for f in loaded])
    out, taken = [], set()
    for f in loaded:
        label = f.fixture.name.strip() or f.path.stem
        if f.fixture.name in repeated or not f.fixture.name.strip():
            label = _relative(f.path, base)
        # A newline must not break the matrix, nor an escape sequence reach the terminal.
        label = printable(" ".join(label.split()))
        label = shorten(label, MAX_LABEL)
        unique, n = label, 2
        while unique in taken:
            unique, n = f"{label} ({n})", n + 1
        taken.add(unique)
        out.append(Loaded(f.path, f.fixture, unique))
    return out


def shorten(text: str, width: int) -> str:
    """Cut the middle out: both ends of a fixture name tell cases apart (target, kind, features)."""
    if len(text) <= width:
        return text
    head = (width - 3) // 2
    return text[:head] + "..." + text[len(text) - (width - 3 - head):]


def _common_parent(paths: list[Path]) -> Path | None:
    try:
        return Path(os.path.commonpath([p.resolve().parent for p in paths])) if paths else None
    except ValueError:  # different drives
        return None


def _relative(path: Path, base: Path | None) -> str:
    resolved = path.resolve()
    if base is not None:
        try:
            return str(resolved.relative_to(base).with_suffix(""))
        except ValueError:
            pass
    return str(path.with_suffix(""))


# -- running -----------------------------------------------------------------

def replay(fixtures: list[Loaded], given: list[Target] | None = None, timeout: float = 5.0,
           unreadable: list[Unreadable] | tuple[Unreadable, ...] = ()) -> Report:
    """Run every fixture on the reference and its targets; ``given`` replaces the recorded built-in targets.
    The ``unreadable`` files (:func:`read_fixtures`) are reported as they are."""
    builtins = builtin_targets({name for loaded in fixtures for name in loaded.fixture.observed}
                               if given is None else ())
    columns: list[str] = [REFERENCE_NAME]
    levels: dict[str, tuple[str, str]] = {REFERENCE_NAME: ("bytes", __version__)}
    cells: list[Cell] = []
    for loaded in fixtures:
        case = loaded.fixture.case
        if given is not None:
            runs = [t for t in given if t.name != REFERENCE_NAME]
        else:
            runs = [builtins[name] for name in loaded.fixture.observed
                    if name in builtins and name != REFERENCE_NAME]
        runs = [t for t in runs if case.dialect in t.dialects]  # a target runs only on the dialects it lists
        payloads = chunks_of(case)
        cells.append(_reference_cell(loaded, timeout))
        for target in runs:
            outside = target.scope.admits(case.features)
            if outside is not None:
                # Not what the library can be asked for (its scope): not run, whatever was recorded.
                recorded, kind = loaded.recorded(target.name)
                cells.append(Cell(loaded, target.name, "skipped", "skipped", recorded=recorded, recorded_kind=kind,
                                  reason=f"out of scope: {outside}"))
                continue
            divergences, seconds = _run_cell(loaded, target, payloads, timeout)
            cells.append(_cell(loaded, target.name, divergences, seconds, target.version))
            levels.setdefault(target.name, (target.level, target.version))
        ran = {REFERENCE_NAME} | {t.name for t in runs}
        for name in loaded.fixture.observed:
            if name not in ran:
                reason = ("not in this run's --target" if given is not None or name in builtins
                          else "not a built-in target; give it with --target to run it")
                recorded, kind = loaded.recorded(name)
                cells.append(Cell(loaded, name, "skipped", "skipped", recorded=recorded, recorded_kind=kind,
                                  reason=reason))
        for c in cells:
            if c.fixture is loaded and c.target not in columns:
                columns.append(c.target)
    return Report(tuple(fixtures), tuple(columns), tuple(cells), levels, tuple(unreadable))


def divergent(report: Report, targets: dict[str, Target], timeout: float = 5.0) -> list[tuple[Loaded, Finding]]:
    """Each unexpected divergence of a target (not the reference) in ``report``, as a finding: its fixture's case,
    the target's observation of it run again, its first divergence (as a run reports one a case and target)."""
    out = []
    for cell in report.cells:
        target = targets.get(cell.target)
        if not cell.unexpected or target is None or cell.target == REFERENCE_NAME or not cell.divergences:
            continue
        case = cell.fixture.fixture.case
        observation = observe(target, case, chunks_of(case), timeout)
        out.append((cell.fixture, Finding(target, cell.divergences[0], case, observation, PLAIN_FEATURES, 0)))
    return out


def _run_cell(loaded: Loaded, target: Target, payloads: list[bytes], timeout: float) -> tuple[list[Divergence], float]:
    """Run one target on one fixture; one recorded as killing its process runs in a child (toolfuzz.judge.child)."""
    return judged(loaded.fixture.case, target, timeout, payloads,
                  isolated=loaded.recorded(target.name)[1] in ISOLATED_KINDS)


def judged(case: Case, target: Target, timeout: float, payloads: list[bytes] | None = None,
           isolated: bool = False) -> tuple[list[Divergence], float]:
    """``target``'s divergences on a fixture's ``case`` and the seconds it took, as a run judges them: the one
    way the check, ``toolfuzz bisect`` and ``toolfuzz.testing.check_fixture`` judge a fixture.  ``isolated``
    runs it in a child process (for a target recorded as killing its own)."""
    payloads = chunks_of(case) if payloads is None else payloads
    if isolated:
        started = time.perf_counter()
        result = observe_isolated(target, case, payloads, timeout)
        if isinstance(result, Divergence):
            return [result], time.perf_counter() - started
        observation = result
    else:
        observation = observe(target, case, payloads, timeout)
    return compare(case.expected, observation, target, expected_events(case)), observation.seconds


def _cell(loaded: Loaded, name: str, divergences: list[Divergence], seconds: float, version: str = "") -> Cell:
    recorded, recorded_kind = loaded.recorded(name)
    root = loaded.root_cause(name) if recorded else RootCause()
    state = state_of(divergences)
    if state == "ok":
        verdict = "fixed" if recorded and name != REFERENCE_NAME else "ok"
    elif name == REFERENCE_NAME or not recorded:
        verdict = "unexpected"
    elif root.verdict(divergences) == "fails":
        verdict = "still fails"
    else:
        verdict = "changed"
    return Cell(loaded, name, state, verdict, tuple(divergences), recorded, recorded_kind, root.state,
                seconds=seconds, version=version)


def _reference_cell(loaded: Loaded, timeout: float) -> Cell:
    """The reference vouches for the fixture: its assembler judged as in a search, and its decoder on the events.

    Both are contestants judged against what the fixture records: the
    assembler on the whole expected outcome (it claims statuses and the
    stream error, and gets the case's tools and bounds), the decoder on the
    recorded events, when there are any.
    """
    case = loaded.fixture.case
    if text_format(case.dialect) is not None:
        # A model's text, not a wire: there is nothing for the reference to assemble but the producer's deltas,
        # which it assembles in every producer's own cell (toolfuzz.judge.producer).
        return _cell(loaded, REFERENCE_NAME, [], 0.0)
    observation = observe(REFERENCE, case, None, timeout)
    divergences = compare(case.expected, observation, REFERENCE)
    if case.events is not None:
        decoded = observe(REFERENCE_SSE, case, None, timeout)
        divergences += [dataclasses.replace(d, detail=f"reference decoder: {d.detail}")
                        for d in compare(case.expected, decoded, REFERENCE_SSE, case.events)]
    return _cell(loaded, REFERENCE_NAME, divergences, observation.seconds)
