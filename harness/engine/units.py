"""Units of work: what one search covers, how ``--shard`` splits a run into them, and the cases of each.

A unit is some targets searched together with the call shapes of some
profiles.  An unsharded run is one unit of everything.  ``--shard I/N`` lets
the jobs of a CI matrix split a run's work without talking to each other.
The rule: list every (target, profile) pair, targets in the run's order and,
within each target, profiles in the order ``toolfuzz profiles`` lists them
(or the order of ``--profile``).  Pair number k (from 0) belongs to shard
``k mod N + 1``.  A shard searches each of its profiles in turn with the
targets that pair with it there.  Every pair is in exactly one shard, and
the same arguments give every job the same split.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from hypothesis.errors import InvalidArgument

from toolfuzz import strategies
from toolfuzz.errors import UsageError
from toolfuzz.strategies.cases import Planner
from toolfuzz.vocabulary import DIALECTS, Case

#: The dialect a run draws in when it names none.
DEFAULT_DIALECT = DIALECTS[0]

__all__ = ["Unit", "parse_shard", "units_for", "cases_for"]


@dataclass(frozen=True)
class Unit:
    """A search over some targets, with the call shapes of some profiles (None: every profile)."""

    profiles: tuple[str, ...] | None
    targets: tuple[str, ...]


def cases_for(tools: str | None, profiles: tuple[str, ...] | None, dialect: str | None,
              say: Callable[[str], None] = lambda text: None, verbose: bool = False,
              dialects: tuple[str, ...] = (), servers: tuple[str, ...] | None = None,
              captured: tuple[tuple[str, Case], ...] = ()) -> Planner:
    """The planner of ``profiles``' cases for a tool file (None: the bundled tools) and a dialect (None: chat),
    or with ``dialects`` (the producer level's formats), of those, a case each in one of them; with ``servers``,
    only what those servers are known to send; with ``captured`` (origin, case) real captures, some cases grown
    from them.

    A tool file that cannot be used, or profiles the dialect does not have, are a UsageError:
    the same for the run's own process and for each worker.  The bundled tools' planners are built once a
    process (toolfuzz.engine.warm builds the default one in the fork server, before any worker is forked).
    """
    if dialects:
        profiles = None  # a model's text has no call-shape profiles; a shard's unit of them names none
    if tools is None and not captured:
        return _bundled(tuple(profiles) if profiles else None, dialect or DEFAULT_DIALECT, tuple(dialects),
                        tuple(servers) if servers is not None else None)
    loaded = strategies.resolve_tools(tools, say, verbose) if tools else None
    return _planner(loaded, profiles, dialect, dialects, servers, captured)


@functools.lru_cache(maxsize=8)
def _bundled(profiles: tuple[str, ...] | None, dialect: str, dialects: tuple[str, ...],
             servers: tuple[str, ...] | None) -> Planner:
    return _planner(None, profiles, dialect, dialects, servers, ())


def _planner(tools: Any, profiles: tuple[str, ...] | None, dialect: str | None, dialects: tuple[str, ...],
             servers: tuple[str, ...] | None, captured: tuple[tuple[str, Case], ...]) -> Planner:
    # --dialect is passed on only when it is set: the strategies' own default stands otherwise.
    dialect_option: dict[str, Any] = {"dialects": dialects} if dialects else {"dialect": dialect} if dialect else {}
    try:
        return Planner(tools=tools, profiles=list(profiles) if profiles else None, servers=servers,
                       captured=captured, **dialect_option)
    except InvalidArgument as e:
        raise UsageError(str(e)) from None


def parse_shard(text: str) -> tuple[int, int]:
    index, slash, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise UsageError(f"--shard {text}: expected I/N, two whole numbers such as 1/4") from None
    if not slash or n < 1 or not 1 <= i <= n:
        raise UsageError(f"--shard {text}: I must be between 1 and N")
    return i, n


def units_for(targets: list[str], profiles: list[str], shard: tuple[int, int] | None,
              restricted: bool) -> list[Unit]:
    """The units of work of one shard; with no shard, one unit of everything.

    ``restricted`` says whether ``profiles`` came from ``--profile`` (else: every profile, which the
    unsharded search draws from together rather than one at a time).
    """
    if shard is None:
        return [Unit(tuple(profiles) if restricted else None, tuple(targets))]
    index, count = shard
    mine: dict[str, list[str]] = {}
    k = 0
    for target in targets:
        for profile in profiles:
            if k % count == index - 1:
                mine.setdefault(profile, []).append(target)
            k += 1
    return [Unit((profile,), tuple(mine[profile])) for profile in profiles if profile in mine]
