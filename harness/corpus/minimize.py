"""Shrinking fixtures again against their recorded targets as installed now (``toolfuzz corpus minimize``).

Each step is kept only if the target still diverges with the recorded kind.  It removes only what cannot change
what the stream means (SSE comment lines, network-read boundaries), so the expected outcome and the events stay
the ones the case was built with: no contestant, the reference included, is asked what a smaller stream means.
Generated findings were reduced on their plans already (:mod:`toolfuzz.engine.reduction`); this is for the
fixtures a plan no longer renders: written by hand, imported from captures, or recorded on older releases.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from toolfuzz import __version__
from toolfuzz.judge.compare import KINDS, Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.corpus.fixtures import Fixture, dumps, write_atomic
from toolfuzz.identity import CrashState
from toolfuzz.judge.child import ISOLATED_KINDS, observe_isolated
from toolfuzz.vocabulary import Case
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.corpus.replay import REFERENCE_NAME, fixed_text
from toolfuzz.engine.events import signature_of
from toolfuzz.targets.base import Target
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.selftest import PLAIN, SELFTEST
from toolfuzz.corpus.entries import Entry, diverging, load_corpus

__all__ = ["Minimized", "minimize", "shrink"]


@dataclass(frozen=True)
class Minimized:
    """What became of one fixture: ``shrunk``, ``minimal`` (nothing smaller fails), ``fixed``, ``skipped``."""

    action: str
    path: Path
    target: str = ""
    kind: str = ""
    before: tuple[int, int, int] | None = None
    after: tuple[int, int, int] | None = None
    detail: str = ""
    tries: int = 0


_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _comments(wire: bytes) -> list[tuple[int, int]]:
    """The byte spans of the wire's comment lines: a line that starts with a colon is ignored by every decoder."""
    return [m.span() for m in _LINE.finditer(wire) if wire.startswith(b":", m.start())]


def _without(wire: bytes, cuts: tuple[int, ...], a: int, b: int) -> tuple[bytes, tuple[int, ...]]:
    """The wire less bytes ``a..b``; a cut inside them goes, a cut after them moves back."""
    gone = b - a
    kept = tuple(c if c <= a else c - gone for c in cuts if not a < c < b)
    return wire[:a] + wire[b:], kept


def _reads(wire: bytes, cuts: tuple[int, ...]) -> tuple[bytes, ...]:
    bounds = (0, *cuts, len(wire))
    return tuple(wire[x:y] for x, y in zip(bounds, bounds[1:]))


def shrink(case: Case, still_fails: Callable[[Case], bool], deadline: float) -> tuple[Case, int]:
    """The smallest case a greedy pass reaches from ``case`` on which ``still_fails`` holds, and the tries it took.

    Each pass tries removing one comment line, then one read boundary, last
    to first; a removal is kept when the smaller stream still fails, and the
    passes repeat until none removes anything or time is up.  Neither
    changes which events the stream dispatches (a read is never a delta), so
    the case's expected outcome and events are kept as they were built.
    Comments stay where the bound on stream bytes decides the outcome.
    """
    best, tries = case, 0
    error = case.expected.error
    bytes_count = error is not None and error.code == "stream_too_large"

    def attempt(wire: bytes, cuts: tuple[int, ...]) -> bool:
        nonlocal best, tries
        if time.monotonic() >= deadline:
            return False
        tries += 1
        candidate = replace(best, reads=_reads(wire, cuts))
        if candidate.size < best.size and still_fails(candidate):
            best = candidate
            return True
        return False

    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        if not bytes_count:
            for i in reversed(range(len(_comments(best.wire)))):
                spans = _comments(best.wire)
                if i < len(spans) and attempt(*_without(best.wire, best.cuts, *spans[i])):
                    progress = True
        for i in reversed(range(len(best.cuts))):
            if i < len(best.cuts):
                progress |= attempt(best.wire, best.cuts[:i] + best.cuts[i + 1:])
    return best, tries


def minimize(paths: list[str], timeout: float = 5.0, budget: float = 30.0, write: bool = True,
             targets: dict[str, Target] | None = None,
             on_done: Callable[[Minimized], None] = lambda m: None) -> list[Minimized]:
    """Shrink every fixture under ``paths`` again against its recorded target, as installed now."""
    entries = load_corpus(paths)
    if targets is None:
        targets = {t.name: t for t in (PLAIN, *SELFTEST)}
        if any(name not in targets for e in entries for name, _ in diverging(e.fixture)):
            targets = builtin_targets({name for e in entries for name, _ in diverging(e.fixture)})
    done = []
    for entry in entries:
        result = _minimize_one(entry, targets, timeout, budget, write)
        on_done(result)
        done.append(result)
    return done


def _minimize_one(entry: Entry, targets: dict[str, Target], timeout: float, budget: float,
                  write: bool) -> Minimized:
    fixture, path = entry.fixture, entry.path
    recorded = diverging(fixture)
    if not recorded:
        return Minimized("skipped", path, detail="records no divergence to keep")
    name, kind = recorded[0]
    target = targets.get(name)
    if target is None or name == REFERENCE_NAME:
        return Minimized("skipped", path, name, kind, detail="not an installed built-in target")
    case = fixture.case

    def kinds(candidate: Case) -> tuple[set[str], Observation, list[Divergence]]:
        if kind in ISOLATED_KINDS:
            # It killed its process once: each try runs in a child, or the first would end this one.
            result = observe_isolated(target, candidate, None, timeout)
            if isinstance(result, Divergence):
                return {result.kind}, Observation(), [result]
            observation = result
        else:
            observation = observe(target, candidate, None, timeout)
        found = compare(candidate.expected, observation, target, expected_events(candidate))
        return {d.kind for d in found}, observation, found

    met, _, first = kinds(case)
    if kind not in met:
        return Minimized("fixed", path, name, kind, case.size, detail=fixed_text(fixture, name, target.version))
    smaller, tries = shrink(case, lambda c: kind in kinds(c)[0], time.monotonic() + budget)
    if smaller.size >= case.size:
        # A raise written before crash states were recorded gets its own, so that merging a night's
        # findings into the corpus folds the same raise into it instead of adding it beside it.
        state = next(d.state for d in first if d.kind == kind)
        if state and fixture.crash_state is None:
            if write:
                write_atomic(path, dumps(replace(fixture, found=_with_state(fixture.found, name, kind, state))))
            return Minimized("minimal", path, name, kind, case.size, case.size, tries=tries,
                             detail=f"crash state recorded: {state}")
        return Minimized("minimal", path, name, kind, case.size, case.size, tries=tries)
    if write:
        _, observation, found = kinds(smaller)
        divergence = next(d for d in found if d.kind == kind)
        write_atomic(path, dumps(_shrunk_fixture(fixture, smaller, target, divergence, observation, case)))
    return Minimized("shrunk", path, name, kind, case.size, smaller.size, tries=tries)


def _shrunk_fixture(fixture: Fixture, case: Case, target: Target, divergence: Divergence,
                    observation: Observation, before: Case) -> Fixture:
    observed = dict(fixture.observed)
    # A death has no observation of its own: it is what the target did (as the supervisor records it).
    seen = {divergence.kind: divergence.detail} if divergence.kind in ISOLATED_KINDS else observation.to_json()
    entry = {k: v for k, v in observed[target.name].items() if k != "output"}  # the old case's, not this one's
    observed[target.name] = {**entry, "detail": divergence.detail,
                             "observation": seen, "level": target.level, "version": target.version}
    if observation.output:
        observed[target.name]["output"] = observation.output.to_json()
    found: dict[str, Any] = {**{k: v for k, v in fixture.found.items() if k != "unshrunk"}, "minimized": {
        "by": "toolfuzz corpus minimize", "toolfuzz": __version__, "version": target.version,
        "from": {"calls": before.size[0], "reads": before.size[1], "bytes": before.size[2]}}}
    if divergence.state and fixture.crash_state is None:
        found = _with_state(found, target.name, divergence.kind, divergence.state)
    description = fixture.description
    if description.startswith(KINDS[divergence.kind]):  # written by a run: its detail is now the new one's
        description = f"{KINDS[divergence.kind]}. {divergence.detail}"
    return replace(fixture, case=case, observed=observed, found=found, description=description)


def _with_state(found: dict[str, Any], target: str, kind: str, state: CrashState) -> dict[str, Any]:
    """``found`` with a raise's crash state, and the state in the signature the run wrote (``kind[state]``)."""
    out = {**found, "crash_state": str(state)}
    given = found.get("signature")
    if isinstance(given, str) and given.startswith(f"{target}/{kind}/"):
        out["signature"] = signature_of(target, kind, given[len(f"{target}/{kind}/"):].split("+"), state)
    return out
