"""Regression ranges: on which releases of a package a fixture fails, found by bisection.

Theory of operation
-------------------

A fixture records a case and the outcome it must have; a target either gives
that outcome or diverges.  Run on every release of the library under it,
the verdict is ``passes`` or ``fails`` for each release (``error`` where the
release does not install or the target does not load there).  Releases are
probed each in an environment of its own (:mod:`toolfuzz.judge.environments`,
cached as ``bisect-<package>-<version>``), the target served there over the
subprocess protocol, so any release can be judged from one toolfuzz.

Assuming the verdict changes at most once in the range (a bug is introduced,
or fixed), the oldest and the newest release that load are probed, and, when
they differ, the release where it changes is found by bisection: about
log2(n) probes for n releases.  A release that gives ``error`` is stepped
over: the search goes on among the others.  Every release probed is
reported with its verdict, so a range that is not monotone shows.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Callable

from toolfuzz.errors import UsageError
from toolfuzz.judge import environments
from toolfuzz.corpus.replay import judged
from toolfuzz.targets.command import CommandError, command_target
from toolfuzz.vocabulary import Case

__all__ = ["Range", "releases", "bisect", "probe_in_environment", "DEFAULT_RELEASES"]

#: Releases a bisection covers when ``--between`` does not say: the newest ones.
DEFAULT_RELEASES = 12
_PRE = re.compile(r"(a|b|rc|dev|alpha|beta)\d*", re.IGNORECASE)


@dataclass(frozen=True)
class Range:
    fixture: str
    #: The first release that fails after one that passes, and the first that passes after one that fails.
    introduced: str | None
    fixed: str | None
    #: Every release probed, oldest first: ``fails``, ``passes`` or ``error``.
    tested: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"fixture": self.fixture, "introduced": self.introduced, "fixed": self.fixed, "tested": self.tested}


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version.split("+")[0]))


def releases(package: str, between: tuple[str, str] | None = None) -> list[str]:
    """The final releases of ``package`` the index offers, oldest first: within ``between``, else the newest few."""
    done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package, "--disable-pip-version-check"],
                          capture_output=True, text=True)
    line = next((x for x in done.stdout.splitlines() if x.startswith("Available versions:")), None)
    if done.returncode != 0 or line is None:
        said = [x for x in (done.stderr or done.stdout).strip().splitlines() if not x.startswith("WARNING:")]
        tail = " / ".join(said[-2:])
        raise UsageError(f"--package {package}: the index lists no releases ({tail[:300]})")
    found = sorted({v.strip() for v in line.partition(":")[2].split(",") if v.strip() and not _PRE.search(v)},
                   key=_key)
    if between is None:
        return found[-DEFAULT_RELEASES:]
    old, new = _key(between[0]), _key(between[1])
    chosen = [v for v in found if old <= _key(v) <= new]
    if not chosen:
        raise UsageError(f"--between {between[0]} {between[1]}: no release of {package} in that range")
    return chosen


def probe_in_environment(case: Case, target: str, package: str, timeout: float = 5.0,
                         say: Callable[[str], None] = lambda text: None) -> Callable[[str], str]:
    """A probe: the verdict of ``target`` on ``case`` with ``package==version`` installed."""

    def probe(version: str) -> str:
        name = re.sub(r"[^A-Za-z0-9._-]", "-", f"bisect-{package}-{version}")[:64]
        wanted = [f"{package}=={version}"]
        try:
            env = environments.ensure(name, wanted, say)
            served = command_target([*env.serve, target], summary=f"{target} with {package} {version}")
        except (UsageError, CommandError) as e:
            say(f"{package} {version}: error: {e}")
            return "error"
        try:
            found, _ = judged(case, served, timeout)
        finally:
            served.extra["child"].stop()
        verdict = "fails" if found else "passes"
        say(f"{package} {version}: {verdict}")
        return verdict

    return probe


def bisect(fixture: str, versions: list[str], probe: Callable[[str], str]) -> Range:
    """Where the verdict of ``probe`` over ``versions`` (oldest first) changes, by bisection."""
    tested: dict[str, str] = {}

    def at(i: int) -> str:
        if versions[i] not in tested:
            tested[versions[i]] = probe(versions[i])
        return tested[versions[i]]

    def ordered() -> dict[str, str]:
        return {v: tested[v] for v in versions if v in tested}

    usable = list(range(len(versions)))
    # The two ends that load; an end that does not is stepped over.
    while usable and at(usable[0]) == "error":
        usable.pop(0)
    while len(usable) > 1 and at(usable[-1]) == "error":
        usable.pop()
    if len(usable) < 2 or at(usable[0]) == at(usable[-1]):
        return Range(fixture, None, None, ordered())
    first = at(usable[0])
    lo, hi = 0, len(usable) - 1  # positions in usable: verdict at lo is first's, at hi the other
    while hi - lo > 1:
        mid = (lo + hi) // 2
        verdict = at(usable[mid])
        if verdict == "error":
            usable.pop(mid)
            hi -= 1
            continue
        if verdict == first:
            lo = mid
        else:
            hi = mid
    changed = versions[usable[hi]]
    return Range(fixture, changed if first == "passes" else None, changed if first == "fails" else None, ordered())


def describe(found: Range) -> str:
    """One paragraph for a person: the range, then every release probed."""
    seen = set(found.tested.values()) - {"error"}
    if found.introduced:
        head = f"introduced in {found.introduced}"
    elif found.fixed:
        head = f"fixed in {found.fixed}"
    elif seen:
        head = f"{seen.pop()} on every release that loaded"
    else:
        head = "no release loaded"
    return (f"{found.fixture}: {head}\n  tested: "
            + ", ".join(f"{v} {verdict}" for v, verdict in found.tested.items()))


