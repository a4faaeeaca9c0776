"""One worker process of ``toolfuzz run --workers N``: the ordinary search, in a process that may die.

The supervisor (:mod:`toolfuzz.engine.supervisor`) starts each worker from a fork
server with a :class:`WorkerConfig`.  The worker runs :func:`toolfuzz.engine.search.search`
on its units of work and sends what it finds over a pipe; it never writes
findings itself.  Before any target runs on a case, the case is pickled to
the worker's in-flight file, and a shared slot names the target being
called and since when: whatever kills the process (a segfault, ``os._exit``,
a loop deaf to the time limit, memory past ``--memory-cap``), the supervisor
still knows which target did it and on what case.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import resource
import signal
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from hypothesis.errors import InvalidArgument

from toolfuzz.engine.database import namespace_for, open_database
from toolfuzz.judge.exits import exiting_on_fatal
from toolfuzz.errors import UsageError
from toolfuzz.vocabulary import Case
from toolfuzz.engine.search import Finding, SearchStats, search
from toolfuzz.judge.contestants import default_targets, resolve_all
from toolfuzz.targets.adapters import KNOWN
from toolfuzz.targets.base import Target

__all__ = ["WorkerConfig", "Unit", "PRELOAD", "preload_for", "main"]


#: Modules the fork server imports once, so that each worker (and each restart) starts in a moment.
PRELOAD = ["toolfuzz.engine.worker", "toolfuzz.strategies", "toolfuzz.targets.registry"]


def preload_for(names: Iterable[str]) -> list[str]:
    """:data:`PRELOAD` and the adapters that define one of ``names``: loading a library takes seconds,
    and the libraries nobody runs (all of them: about 500 MB) would sit in every worker's memory."""
    wanted = set(names)
    return [*PRELOAD, *(a.module for a in KNOWN if wanted & set(a.names))]


@dataclass(frozen=True)
class Unit:
    """A search over some targets, with the call shapes of some profiles (None: every profile)."""

    profiles: tuple[str, ...] | None
    targets: tuple[str, ...]


@dataclass(frozen=True)
class WorkerConfig:
    number: int
    seed: int
    specs: tuple[str, ...]
    level: str
    #: Every target of the run, in order: the shared slot holds an index into this.
    names: tuple[str, ...]
    units: tuple[Unit, ...]
    tools: str | None
    dialect: str | None
    max_examples: int
    #: Seconds to search, counted from when the worker is ready (loading targets may take a while).
    budget: float
    timeout: float
    memory_cap: int | None
    inflight: str
    database: str | None
    known: dict[tuple[str, str], list[frozenset[str]]] = field(default_factory=dict)


class _Stop:
    def __init__(self, parent: int) -> None:
        self.requested = False
        self.parent = parent

    def __call__(self) -> bool:
        # A supervisor killed with SIGKILL cannot tell its workers; an orphan stops by itself.
        return self.requested or os.getppid() != self.parent


def main(config: WorkerConfig, conn: Any, current: Any, since: Any) -> None:
    """The worker's life: set its limits, search, send findings and a last summary, exit."""
    _die_with_parent()
    # The parent is the fork server, which ends when the supervisor does.
    stop = _Stop(os.getppid())

    def request_stop(signum: int, frame: Any) -> None:
        stop.requested = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        targets = _targets(config, current, since)
        from toolfuzz import strategies

        tools = strategies.resolve_tools(config.tools, lambda text: None) if config.tools else None
        if config.memory_cap:
            # After the imports: the cap is for what targets allocate, not for loading the harness.
            resource.setrlimit(resource.RLIMIT_AS, (config.memory_cap, config.memory_cap))
        totals = _Totals()
        recorder = _Recorder(Path(config.inflight), config, conn, totals)
        deadline = time.monotonic() + config.budget
        conn.send(("ready", deadline))
        for i, unit in enumerate(config.units):
            if stop() or time.monotonic() >= deadline:
                break
            remaining = config.max_examples - totals.examples
            if remaining <= 0:
                break
            budget = max(0.01, (deadline - time.monotonic()) / (len(config.units) - i))
            # --dialect comes from another part of the run command; passed on only when it is set.
            dialect = {"dialect": config.dialect} if config.dialect else {}
            strategy = strategies.cases(tools=tools, profiles=list(unit.profiles) if unit.profiles else None,
                                        **dialect)
            database = open_database(config.database, namespace_for(unit.targets, unit.profiles))
            recorder.unit = unit

            def on_finding(finding: Finding) -> None:
                conn.send(("finding", portable(finding)))

            _, stats = search([targets[n] for n in unit.targets], strategy, max_examples=remaining, budget=budget,
                              seed=config.seed, timeout=config.timeout, known=dict(config.known),
                              on_finding=on_finding, on_progress=recorder.progress,
                              plain=strategies.PLAIN_FEATURES, database=database, on_case=recorder.before_case,
                              stop=stop)
            totals.add(stats, unit)
            recorder.last = None
        conn.send(("done", totals.to_json()))
        Path(config.inflight).unlink(missing_ok=True)
    except (UsageError, InvalidArgument) as e:
        # InvalidArgument: toolfuzz.strategies.cases() refuses this unit's profiles, tools or dialect.
        conn.send(("error", str(e)))
    finally:
        conn.close()


def _targets(config: WorkerConfig, current: Any, since: Any) -> dict[str, Target]:
    resolved = resolve_all(list(config.specs), config.level) if config.specs else default_targets()
    index = {name: i for i, name in enumerate(config.names)}
    # Every function a target runs is watched, a dialect's own included: a death outside the watch
    # would be charged to no target, and a hang there would never be seen.
    return {t.name: t.wrapped(lambda fn, number=index[t.name]: _watched(fn, number, current, since))
            for t in resolved if t.name in index}


def _watched(fn: Any, number: int, current: Any, since: Any) -> Any:
    fatal = exiting_on_fatal(fn)

    def call(*args: Any, **kwargs: Any) -> Any:
        current.value = number
        since.value = time.monotonic()
        try:
            return fatal(*args, **kwargs)  # a death ends the process here, the target still named in the slot
        finally:
            current.value = -1
            since.value = 0.0
    return call


class _Totals:
    """The worker's figures over its units, sent with ``done`` and, now and then, as ``stats``."""

    def __init__(self) -> None:
        self.examples = 0
        self.by_target: dict[str, int] = {}
        self.seconds_in: dict[str, float] = {}
        self.by_feature: dict[str, int] = {}
        self.flaky: list[str] = []
        self.rounds = 0
        self.stopped_by = ""

    def add(self, stats: SearchStats, unit: Unit) -> None:
        self.examples += stats.examples
        self.rounds += stats.rounds
        for name in unit.targets:
            self.by_target[name] = self.by_target.get(name, 0) + stats.examples
        for table, more in ((self.seconds_in, stats.seconds_in), (self.by_feature, stats.by_feature)):
            for k, v in more.items():
                table[k] = table.get(k, 0) + v
        self.flaky.extend(stats.flaky)
        self.stopped_by = stats.stopped_by

    def to_json(self, running: SearchStats | None = None, unit: Unit | None = None) -> dict[str, Any]:
        doc = {"examples": self.examples, "rounds": self.rounds, "by_target": dict(self.by_target),
               "seconds_in": dict(self.seconds_in), "by_feature": dict(self.by_feature), "flaky": list(self.flaky),
               "stopped_by": self.stopped_by}
        if running is not None and unit is not None:
            more = _Totals()
            more.add(running, unit)
            for key in ("by_target", "seconds_in", "by_feature"):
                for k, v in getattr(more, key).items():
                    doc[key][k] = doc[key].get(k, 0) + v
            doc["examples"] += running.examples
            doc["rounds"] += running.rounds
        return doc


class _Recorder:
    """Writes each case to the in-flight file before the targets see it, and reports progress."""

    def __init__(self, path: Path, config: WorkerConfig, conn: Any, totals: _Totals) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.config = config
        self.conn = conn
        self.totals = totals
        self.unit: Unit | None = None
        self.last: SearchStats | None = None
        self.sent = 0.0
        path.parent.mkdir(parents=True, exist_ok=True)

    def before_case(self, case: Case) -> None:
        # Rename over the old file, without fsync: it must survive this
        # process, not the machine, and a case costs a rename instead of a disk flush.
        self.tmp.write_bytes(pickle.dumps(case, pickle.HIGHEST_PROTOCOL))
        os.replace(self.tmp, self.path)

    def progress(self, stats: SearchStats) -> None:
        self.last = stats
        now = time.monotonic()
        if now - self.sent >= 1.0:
            self.sent = now
            self.conn.send(("stats", self.totals.to_json(stats, self.unit)))


def portable(finding: Finding) -> tuple[str, Finding]:
    """A finding as it crosses the pipe: whole (case and observation), its target by name.

    A target is a loaded library and its functions, which need not pickle; the
    supervisor has the same targets and puts its own back (:func:`arrived`).
    """
    return finding.target.name, replace(finding, target=None)


def arrived(message: tuple[str, Finding], targets: dict[str, Target]) -> Finding:
    name, finding = message
    return replace(finding, target=targets[name])


def _die_with_parent() -> None:
    # Linux: the kernel sends SIGKILL to this process when the supervisor dies,
    # even inside a target that never returns.  Elsewhere _Stop's check remains.
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
