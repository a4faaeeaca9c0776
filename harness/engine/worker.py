"""One worker process of ``toolfuzz run``: the ordinary search, in a process that may die.

The supervisor (:mod:`toolfuzz.engine.supervisor`) starts each worker from a fork
server with a :class:`WorkerConfig`.  The worker runs :func:`toolfuzz.engine.search.search`
on its units of work and sends what it finds over a pipe; it never writes
findings itself.  Before any target runs on a case (a reduction's probes
too), the case and the worker's figures so far are pickled to the worker's
in-flight file, and a shared slot names the target being called and since
when: whatever kills the process (a segfault, ``os._exit``, a loop deaf to
the time limit, memory past ``--memory-cap``), the supervisor still knows
which target did it, on what case, and how many examples the worker ran
before it.
"""

from __future__ import annotations

import os
import pickle
import signal
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from hypothesis.errors import InvalidArgument

from toolfuzz.engine.database import namespace_for, open_database
from toolfuzz.engine.events import Event, Finding, Found, Progress, Stats
from toolfuzz.engine.known import Known, Root
from toolfuzz.engine.search import Search, SearchHooks, SearchSettings
from toolfuzz.engine.settings import RunConfig
from toolfuzz.engine.tether import die_with_parent
from toolfuzz.engine.units import Unit, cases_for
from toolfuzz.errors import UsageError
from toolfuzz.judge import capture
from toolfuzz.targets.specs import default_targets, resolve_all
from toolfuzz.judge.exits import cap_memory, exiting_on_fatal
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.targets.adapters import KNOWN
from toolfuzz.targets.base import Target
from toolfuzz.targets.command import stop_all as stop_programs
from toolfuzz.vocabulary import Case

__all__ = ["WorkerConfig", "PRELOAD", "preload_for", "main", "Ready", "Done", "Failed", "Carried", "Message", "portable",
           "arrived", "output_files"]


#: Modules the fork server imports once, so that each worker (and each restart) starts in a moment.
#: ``toolfuzz.engine.tether`` first: it ties the fork server to the supervisor before anything else is loaded.
PRELOAD = ["toolfuzz.engine.tether", "toolfuzz.engine.worker", "toolfuzz.strategies", "toolfuzz.targets.registry",
           "toolfuzz.engine.warm"]


def preload_for(names: Iterable[str]) -> list[str]:
    """:data:`PRELOAD` and the adapters that define one of ``names``: loading a library takes seconds,
    and the libraries nobody runs (all of them: about 500 MB) would sit in every worker's memory."""
    wanted = set(names)
    return [*PRELOAD, *(a.module for a in KNOWN if wanted & set(a.names))]


@dataclass(frozen=True)
class WorkerConfig:
    """What one worker life is given: the run's settings (without its loaded targets), and its own share."""

    number: int
    #: This life's own seed (Supervisor.derive_seed): workers and their restarts draw different cases.
    seed: int
    run: RunConfig
    #: Every target of the run, in order: the shared slot holds an index into this.
    names: tuple[str, ...]
    units: tuple[Unit, ...]
    #: Its share of the run's examples, less what its earlier lives drew.
    max_examples: int
    #: Seconds to search, counted from when the worker is ready (loading targets may take a while).
    budget: float
    inflight: str
    #: Root causes found before this worker started (by others, or by its own earlier life).
    known: tuple[Root, ...] = ()
    #: Seconds the search may go on past ``budget`` to reduce what waits (engine.search.finishing).
    finishing: float = 0.0
    #: When a restarted worker stops searching, whenever it is ready (a ``time.monotonic()``, which is the
    #: machine's): the run's end, which its loading must not push back.  None: ``budget`` from ready.
    until: float | None = None
    #: The supervisor's environment, which the worker takes on: the fork server's may be older, or another.
    environ: tuple[tuple[str, str], ...] = ()


class _Stop:
    def __init__(self, parent: int) -> None:
        self.requested = False
        self.parent = parent

    def __call__(self) -> bool:
        # A supervisor killed with SIGKILL cannot tell its workers; an orphan stops by itself.
        return self.requested or os.getppid() != self.parent


def main(config: WorkerConfig, conn: Any, current: Any, since: Any) -> None:
    """The worker's life: set its limits, search, send its events and a last summary, exit."""
    die_with_parent()
    # Where the supervisor finds what the call that killed this process had written.
    Path(config.inflight).parent.mkdir(parents=True, exist_ok=True)
    capture.keep_in(*output_files(Path(config.inflight)))
    # The parent is the fork server, which ends when the supervisor does.
    stop = _Stop(os.getppid())

    def request_stop(signum: int, frame: Any) -> None:
        stop.requested = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if config.environ:
        os.environ.clear()
        os.environ.update(config.environ)
    try:
        targets = _targets(config, current, since)
        run = config.run
        drawn = {unit: cases_for(run.tools, unit.profiles, run.dialect, dialects=run.dialects, servers=run.servers,
                                 captured=run.captured)
                 for unit in config.units}
        if run.memory_cap:
            # After the imports: the cap is for what targets allocate, not for loading the harness.
            cap_memory(run.memory_cap, run.memory_cap)
        totals = Stats()
        channel = _Channel(Path(config.inflight), conn, totals)
        deadline = config.until if config.until is not None else time.monotonic() + config.budget
        finish_by = deadline + config.finishing
        known = Known(config.known)
        conn.send(Ready(deadline))
        for i, unit in enumerate(config.units):
            if stop() or time.monotonic() >= deadline:
                break
            remaining = config.max_examples - totals.examples
            if remaining <= 0:
                break
            budget = max(0.01, (deadline - time.monotonic()) / (len(config.units) - i))
            database = open_database(run.database, namespace_for(unit.targets, unit.profiles))
            settings = SearchSettings(max_examples=remaining, budget=budget, seed=config.seed, timeout=run.timeout,
                                      plain=PLAIN_FEATURES, finish_by=finish_by)
            hooks = SearchHooks(emit=channel.emit, on_case=channel.before_case, stop=stop)
            _, stats = Search([targets[n] for n in unit.targets], drawn[unit], settings, known=known,
                              database=database, hooks=hooks).run()
            totals.add(stats)
            totals.stopped_by = stats.stopped_by
            channel.running = None
        conn.send(Done(totals))
        for path in (Path(config.inflight), *output_files(Path(config.inflight))):
            path.unlink(missing_ok=True)
    except (UsageError, InvalidArgument) as e:
        # InvalidArgument: the strategies refuse this unit's profiles, tools or dialect when first drawn.
        conn.send(Failed(str(e)))
    finally:
        conn.close()
        # A worker ends with os._exit, which runs no atexit handler: the programs it started end here.
        stop_programs()


def _targets(config: WorkerConfig, current: Any, since: Any) -> dict[str, Target]:
    resolved = resolve_all(list(config.run.specs), config.run.level) if config.run.specs else default_targets()
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


class _Channel:
    """The worker's side of the pipe: its events, its figures now and then, and the case in flight."""

    def __init__(self, path: Path, conn: Any, totals: Stats) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.conn = conn
        self.totals = totals
        #: The figures of the search under way, not yet in ``totals``.
        self.running: Stats | None = None
        self.sent = 0.0
        path.parent.mkdir(parents=True, exist_ok=True)

    def before_case(self, case: Case) -> None:
        # Rename over the old file, without fsync: it must survive this
        # process, not the machine, and a case costs a rename instead of a disk flush.  The figures go with
        # the case: those of a worker that dies are counted up to it, not up to its last message.
        self.tmp.write_bytes(pickle.dumps((case, self.so_far()), pickle.HIGHEST_PROTOCOL))
        os.replace(self.tmp, self.path)

    def emit(self, event: Event) -> None:
        if isinstance(event, Found):
            self.conn.send(portable(event.finding))
        elif isinstance(event, Progress):
            self.running = event.stats
            now = time.monotonic()
            if now - self.sent >= 1.0:
                self.sent = now
                self.conn.send(Progress(self.so_far()))

    def so_far(self) -> Stats:
        so_far = Stats(started=self.totals.started)
        so_far.add(self.totals)
        if self.running is not None:
            so_far.add(self.running)
        return so_far


def output_files(inflight: Path) -> tuple[Path, Path]:
    """The files a worker's target calls write their stdout and stderr to, beside its in-flight case."""
    return inflight.with_name(f"{inflight.stem}.stdout"), inflight.with_name(f"{inflight.stem}.stderr")


@dataclass(frozen=True)
class Ready:
    """The worker has loaded its targets and searches until ``deadline`` (a ``time.monotonic()``)."""

    deadline: float


@dataclass(frozen=True)
class Done:
    """The worker searched every unit it was given: its figures in all."""

    stats: Stats


@dataclass(frozen=True)
class Failed:
    """The worker could not search: a usage error its units' tools, profiles or dialect met when first drawn."""

    message: str


@dataclass(frozen=True)
class Carried:
    """A new finding as it crosses the pipe: whole (case and observation), its target by name.

    A target is a loaded library and its functions, which need not pickle; the supervisor has the same targets
    and puts its own back (:func:`arrived`)."""

    target: str
    finding: Finding


#: What a worker sends its supervisor: these, and :class:`~toolfuzz.engine.events.Progress` now and then.
Message = Ready | Done | Failed | Carried | Progress


def portable(finding: Finding) -> Carried:
    """A finding as it crosses the pipe (:class:`Carried`)."""
    return Carried(finding.target.name, replace(finding, target=None))


def arrived(message: Carried, targets: dict[str, Target]) -> Finding:
    return replace(message.finding, target=targets[message.target])
