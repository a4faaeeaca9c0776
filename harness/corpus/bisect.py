"""Regression ranges: on which releases of a package a fixture fails, found by bisection.

Theory of operation
-------------------

A fixture records a case and the outcome it must have; a target either gives
that outcome or diverges.  Run on every release of the library under it,
the verdict is ``passes`` or ``fails`` for each release (``error`` where the
release does not install or the target does not load there).  Releases are
probed each in an environment of its own (:mod:`toolfuzz.targets.environments`,
cached as ``bisect-<package>-<version>``), the target served there over the
subprocess protocol, so any release can be judged from one toolfuzz.

A release ``fails`` when it diverges with the fixture's recorded root cause
(:class:`toolfuzz.corpus.replay.RootCause`: its kind, and for a raise, its
crash state), ``passes`` when it agrees, and is ``changed`` when it diverges
another way: a release that raises another exception in another function has
not kept the recorded bug, and is where that bug was fixed.

A bug is most often introduced once, or fixed once, but some come and go.  So
the oldest and the newest release that load are probed, and a few releases
evenly between them (``samples``); then every pair of neighbours among the
probed whose verdicts differ is bisected down to the release where the verdict
changes: about ``samples + 2 + log2(n)`` probes for n releases and one change,
more where there are more changes.  A release that gives ``error`` is stepped
over: the search goes on among the others.  The oldest releases often cannot
load the target at all (the API an adapter needs came later): the first that
loads is then found by halving too, in about ``log2(n)`` probes.  Every
release probed is reported with its verdict; "introduced" is the first change
from ``passes`` to ``fails``, "fixed" the first change from ``fails`` (to
``passes`` or ``changed``), so a bug that came in 1.2 and left in 1.5 has both.
A change from ``changed`` to ``fails`` introduces nothing: the release before
it broke on the same stream another way (or the same way in a frame since
renamed: a crash state names the class), so all that is known is where the
recorded root cause is first seen, which the description says as "fails from".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from toolfuzz.errors import UsageError
from toolfuzz.targets import environments
from toolfuzz.corpus.replay import RootCause, judged
from toolfuzz.targets.adapters import KNOWN, distributions_for, level_of
from toolfuzz.targets.command import CommandError
from toolfuzz.vocabulary import Case

__all__ = ["Range", "bisect", "probe_in_environment", "describe", "SAMPLES"]

#: Releases probed evenly between the two ends before bisecting, so that a bug that came and went shows.
SAMPLES = 2
#: The newest releases tried, newest first, for one that loads before the target is taken not to load at all.
NEWEST_TRIED = 3


@dataclass(frozen=True)
class Range:
    fixture: str
    #: The first release that fails after one that passes, and the first that passes after one that fails.
    introduced: str | None
    fixed: str | None
    #: Every release probed, oldest first: ``fails``, ``passes``, ``changed`` or ``error``.
    tested: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"fixture": self.fixture, "introduced": self.introduced, "fixed": self.fixed, "tested": self.tested}


def requirements_at(target: str, package: str, version: str) -> list[str]:
    """What an environment for ``target`` on ``package==version`` installs: that release beside whatever else
    the target's adapter needs (httpx beside httpx-sse), at the releases the installer picks; for a target of
    an engine with a built-in recipe (sglang, vLLM), the recipe, with that release in place of the recipe's
    own pin of the package (a package it installs without dependencies stays so) or before the rest."""
    name = target.partition("@")[0]
    recipe = next((environments.RECIPES[a.environment] for a in KNOWN if name in a.names and a.environment), ())
    if recipe:
        pinned = f"{package}=={version}"
        if any(_distribution(r) == _distribution(package) for r in recipe):
            return [pinned if _distribution(r) == _distribution(package) else r for r in recipe]
        return [pinned, *recipe]
    others = [d for d in distributions_for(name) if d.lower() != package.lower()]
    return [f"{package}=={version}", *others]


def _distribution(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def probe_in_environment(case: Case, target: str, package: str, timeout: float = 5.0,
                         say: Callable[[str], None] = lambda text: None,
                         root: RootCause = RootCause()) -> Callable[[str], str]:
    """A probe: the verdict of ``target`` on ``case`` with ``package==version`` installed
    (:func:`requirements_at`), following the recorded ``root`` cause (by default, any divergence)."""
    level = level_of(target.partition("@")[0]) or "events"

    def probe(version: str) -> str:
        wanted = requirements_at(target, package, version)
        try:
            env = environments.ensure(environments.name_for("bisect", package, version), wanted, say)
            (served,) = env.served([target], level=level)
            served = replace(served, summary=f"{target} with {package} {version}")
        except (UsageError, CommandError) as e:
            say(f"{package} {version}: error: {e}")
            return "error"
        try:
            found, _ = judged(case, served, timeout)
        finally:
            served.extra["child"].stop()
        verdict = root.verdict(found)
        moved = f" ({found[0].kind}{f' at {found[0].state}' if found[0].state else ''})" if verdict == "changed" else ""
        say(f"{package} {version}: {verdict}{moved}")
        return verdict

    return probe


def bisect(fixture: str, versions: list[str], probe: Callable[[str], str], samples: int = SAMPLES) -> Range:
    """Where the verdict of ``probe`` over ``versions`` (oldest first) changes: the ends, ``samples`` between, then
    bisection between every two probed neighbours that differ."""
    tested: dict[str, str] = {}

    def at(i: int) -> str:
        if versions[i] not in tested:
            tested[versions[i]] = probe(versions[i])
        return tested[versions[i]]

    # The newest end that loads, stepping down past a broken release or two; none of the newest loading means
    # the target does not load at all, and probing every older release would only say so again.
    hi = len(versions) - 1
    while at(hi) == "error":
        if hi == 0 or hi <= len(versions) - NEWEST_TRIED:
            return Range(fixture, None, None, {v: tested[v] for v in versions if v in tested})
        hi -= 1
    # The oldest end that loads.  Releases an adapter cannot load on are the oldest ones, in a run (the API it
    # needs came later), so the first that loads is found by halving between the oldest and the newest, not by
    # stepping up one release at a time.
    lo = 0
    if at(lo) == "error":
        bad, good = 0, hi
        while good - bad > 1:
            mid = (bad + good) // 2
            bad, good = (mid, good) if at(mid) == "error" else (bad, mid)
        lo = good
    for k in range(1, samples + 1):
        if hi - lo > 1:
            at(lo + round(k * (hi - lo) / (samples + 1)))

    def loaded() -> list[int]:
        return [i for i in range(lo, hi + 1) if tested.get(versions[i], "error") != "error"]

    changed = True
    while changed:
        changed = False
        probed = loaded()
        for left, right in zip(probed, probed[1:]):
            if tested[versions[left]] == tested[versions[right]] or right - left == 1:
                continue
            # Halves between two that differ, until they are neighbours among the releases that load.
            between = [i for i in range(left + 1, right) if versions[i] not in tested]
            if between:
                at(between[len(between) // 2])
                changed = True
                break

    probed = loaded()
    changes = [(tested[versions[left]], versions[right], tested[versions[right]])
               for left, right in zip(probed, probed[1:]) if tested[versions[left]] != tested[versions[right]]]
    introduced = next((v for before, v, verdict in changes if before == "passes" and verdict == "fails"), None)
    # Fixed where the recorded root cause stops, whether the release then agrees or diverges another way.
    fixed = next((v for before, v, _ in changes if before == "fails"), None)
    return Range(fixture, introduced, fixed, {v: tested[v] for v in versions if v in tested})


def describe(found: Range) -> str:
    """One paragraph for a person: the range, then every release probed."""
    seen = set(found.tested.values()) - {"error"}
    if found.introduced and found.fixed:
        head = f"introduced in {found.introduced}, fixed in {found.fixed}"
    elif found.introduced:
        head = f"introduced in {found.introduced}"
    elif found.fixed:
        head = f"fixed in {found.fixed}"
    elif since := _first_failing_after_another_divergence(found.tested):
        head = f"fails from {since}; the releases before it diverge another way"
    elif seen:
        head = f"{seen.pop()} on every release that loaded"
    else:
        head = "no release loaded"
    return (f"{found.fixture}: {head}\n  tested: "
            + ", ".join(f"{v} {verdict}" for v, verdict in found.tested.items()))


def _first_failing_after_another_divergence(tested: dict[str, str]) -> str | None:
    loaded = [(v, verdict) for v, verdict in tested.items() if verdict != "error"]
    return next((v for (_, before), (v, verdict) in zip(loaded, loaded[1:])
                 if before == "changed" and verdict == "fails"), None)


