"""``toolfuzz run``: worker processes that may die, and the one process that hears of findings.

A run searches in workers unless it is asked to search in its own process
(``--in-process``): one worker by default, ``--workers N`` for more.  Each
worker (:mod:`toolfuzz.engine.worker`) searches with its own seed.  The
supervisor reads their pipes, emits their findings, whole, as the one
stream of events a run has (:mod:`toolfuzz.engine.events`; one process, so
a signature is deduplicated in one place, by whoever writes findings), adds
up their figures, and watches them:

* a worker that dies (a signal, an exit, MemoryError under the cap) is
  replaced by a new one with a new seed, and the case it was on, read from
  its in-flight file, becomes a finding of kind ``crash`` or ``memory`` for
  the target named in its shared slot; its figures up to that case count;
* a worker whose target call has run past what the longest call may take
  (twice ``--timeout``, as a time-out's second run may, plus a grace: a loop
  the time limit's signal cannot reach) is killed, and the case is a
  ``hang``;
* a target that killed :data:`MAX_DEATHS` workers is left out of the workers
  started after that, so that one target cannot spend the night restarting
  processes; the others go on;
* a worker that cannot search (its strategies refuse the unit) or that dies
  :data:`MAX_DEATHS` times outside any target ends the run with one error:
  that is the harness failing, not a target.

SIGINT and SIGTERM (through :meth:`Supervisor.stop`) ask every worker to stop
at its next case; a worker that does not is killed after the grace.  So is
one still running the grace after the budget and its share for finishing
(:func:`~toolfuzz.engine.search.finishing`): the run ends on time, and a
worker the run itself ended is no finding.

The fork server imports toolfuzz from where this process did, whatever the
current folder holds (:func:`_start_fork_server`).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import pickle
import resource
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolfuzz.engine.events import Emit, Finding, Found, Note, Progress, Stats, StopReason
from toolfuzz.engine.known import Known
from toolfuzz.engine.search import TIMEOUT_MARGIN, finishing
from toolfuzz.engine.tether import SUPERVISOR
from toolfuzz.engine.units import Unit
from toolfuzz.engine.worker import (Carried, Done, Failed, Message, Ready, WorkerConfig, arrived, main as worker_main,
                                    output_files, preload_for)
from toolfuzz.errors import UsageError
from toolfuzz.judge.compare import Divergence
from toolfuzz.judge.capture import read_kept
from toolfuzz.judge.exits import death_of
from toolfuzz.judge.observation import Observation
from toolfuzz.vocabulary import Case

if TYPE_CHECKING:
    from toolfuzz.engine.settings import RunConfig

__all__ = ["Supervisor", "MAX_DEATHS", "derive_seed"]

#: Deaths one target may cause before it is left out of new workers.
MAX_DEATHS = 3
#: Seconds a worker may take to load its targets before it is taken for stuck.
STARTUP_LIMIT = 600
#: Why the supervisor killed a worker, when the run did and its target did not: no finding.
_RUN_ENDED = frozenset({"time", "stopped"})


def derive_seed(seed: int, worker: int, life: int) -> int:
    """Worker 0's first life searches with the run's seed; every other (worker, life) with its own."""
    return (seed + 7919 * worker + 104729 * life) % 2**32



@dataclass
class _Life:
    number: int
    life: int
    seed: int
    units: tuple[Unit, ...]
    process: Any
    conn: Any
    current: Any
    since: Any
    inflight: Path
    started: float = field(default_factory=time.monotonic)
    #: Set by the worker's ``ready``: when it stops generating examples.
    deadline: float | None = None
    stats: Stats = field(default_factory=Stats)
    done: bool = False
    killed_for: str = ""
    error: str = ""


class Supervisor:
    def __init__(self, config: RunConfig, units: list[Unit], plain: frozenset[str],
                 emit: Emit = lambda event: None) -> None:
        self.config = config
        #: The settings each worker gets: the run's, but the loaded targets (each worker resolves its own).
        self.portable = config.portable()
        self.targets = {t.name: t for t in config.targets}
        self.names = tuple(self.targets)
        self.units = tuple(units)
        self.plain = plain
        self.emit = emit
        #: A worker asked to stop, or past the run's end, gets this long to end by itself.
        self.grace = max(1.0, config.timeout / 2)
        #: A target call this long is a hang: a new time-out runs again with TIMEOUT_MARGIN times the limit.
        self.hang_after = TIMEOUT_MARGIN * config.timeout + self.grace
        self.stats = Stats(workers=config.workers)
        self.known = Known()
        self.deaths: dict[str, int] = {}
        #: Each ended life's worker number and last figures.
        self.finished: list[tuple[int, Stats]] = []
        self.stopping = 0.0
        # A fork server, not fork: the supervisor may hold threads and Hypothesis state; and not plain
        # spawn, which would load every target library again for each worker and each restart.
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(preload_for(self.names))
        os.environ[SUPERVISOR] = str(os.getpid())  # read by the fork server (toolfuzz.engine.tether)

    def stop(self) -> None:
        """Ask every worker to stop at its next case (from a signal handler: it only sets a time)."""
        if not self.stopping:
            self.stopping = time.monotonic()

    def run(self) -> Stats:
        # Moved on when the first workers are ready: the budget is for searching, not for starting.
        self.deadline = self.stats.started + self.config.budget
        share = -(-self.config.max_examples // self.config.workers)
        self.shares = [share] * self.config.workers
        _start_fork_server()
        self.inflight = _in_flight_folder(self.config.state)
        try:
            return self._supervise()
        finally:
            shutil.rmtree(self.inflight, ignore_errors=True)

    def _supervise(self) -> Stats:
        lives = [self._start(n, 0, self.units) for n in range(self.config.workers)]
        signalled = False
        last_progress = 0.0
        try:
            while lives:
                ready = wait([life.conn for life in lives], timeout=0.2)
                for life in lives:
                    if life.conn in ready:
                        self._read(life)
                now = time.monotonic()
                if self.stopping and not signalled:
                    signalled = True
                    for life in lives:
                        _signal(life, signal.SIGTERM)
                for life in lives:
                    since = life.since.value
                    if since and now - since > self.hang_after and life.process.is_alive():
                        life.killed_for = "hang"
                        _signal(life, signal.SIGKILL)
                    elif self._overdue(life, now) and life.process.is_alive():
                        life.killed_for = life.killed_for or ("stopped" if self.stopping else "time")
                        _signal(life, signal.SIGKILL)
                still = []
                for life in lives:
                    if life.process.is_alive():
                        still.append(life)
                        continue
                    life.process.join()
                    self._read(life)
                    successor = self._ended(life)
                    if successor is not None:
                        still.append(successor)
                lives = still
                if now - last_progress >= 0.5:
                    last_progress = now
                    self.emit(Progress(self._totals(lives), self._phase(now)))
        except BaseException:
            # An error ends the run: no worker may go on searching (and writing) after it.
            for life in lives:
                _signal(life, signal.SIGKILL)
                life.process.join()
            raise
        stats = self._totals([])
        if self.stopping:
            stats.stopped_by = StopReason.INTERRUPTED
        return stats

    def _phase(self, now: float) -> str:
        if self.stopping:
            return "stopping"
        if not self.stats.startup:
            return "starting workers"
        return "finishing" if now >= self.deadline else ""

    def _overdue(self, life: _Life, now: float) -> bool:
        if self.stopping and now - self.stopping > self.config.timeout + self.grace * 2:
            return True  # asked to stop, and did not: stuck where the time limit cannot reach
        if life.deadline is None:
            return now - life.started > STARTUP_LIMIT
        # Its search ends by itself by then; a call in flight gets the grace, and no more.
        return now > life.deadline + finishing(self.config.budget) + self.grace

    def _start(self, number: int, life: int, units: tuple[Unit, ...]) -> _Life:
        current = self._context.Value("i", -1, lock=False)
        since = self._context.Value("d", 0.0, lock=False)
        reader, writer = self._context.Pipe(duplex=False)
        inflight = self.inflight / f"{number}.pickle"
        inflight.unlink(missing_ok=True)
        done_before = sum(s.examples for n, s in self.finished if n == number)
        config = WorkerConfig(number=number, seed=derive_seed(self.config.seed, number, life), run=self.portable,
                              names=self.names, units=units, max_examples=max(1, self.shares[number] - done_before),
                              budget=max(0.5, self.deadline - time.monotonic()), inflight=str(inflight),
                              known=tuple(self.known), finishing=finishing(self.config.budget),
                              until=self.deadline if life else None, environ=tuple(os.environ.items()))
        process = self._context.Process(target=worker_main, args=(config, writer, current, since),
                                        name=f"toolfuzz-worker-{number}", daemon=True)
        process.start()
        writer.close()
        return _Life(number, life, config.seed, units, process, reader, current, since, inflight)

    def _read(self, life: _Life) -> None:
        while True:
            try:
                if not life.conn.poll():
                    return
                message = life.conn.recv()
            except (EOFError, OSError):
                return
            self._take(life, message)

    def _take(self, life: _Life, message: Message) -> None:
        if isinstance(message, Carried):
            # Workers fold what they meet into what they know; two workers may still each find a root
            # cause the other knows, or a more general one: the same rule, once more, here.
            self._found(arrived(message, self.targets))
        elif isinstance(message, Progress):
            life.stats = message.stats
        elif isinstance(message, Ready):
            life.deadline = message.deadline
            if life.life == 0:
                self.deadline = max(self.deadline, message.deadline)
                # The budget counts from when the last first worker was ready: the time before is start-up.
                self.stats.startup = self.deadline - self.config.budget - self.stats.started
        elif isinstance(message, Done):
            life.stats = message.stats
            life.done = True
        elif isinstance(message, Failed):
            life.error = message.message

    def _found(self, finding: Finding) -> None:
        replaced = self.known.fold(finding, self.stats)
        if replaced is None:
            return
        self.stats.found(finding.target.name, tuple(old.target for old in replaced))
        self.emit(Found(finding, tuple(old.signature for old in replaced)))

    def _ended(self, life: _Life) -> _Life | None:
        """Record how a worker ended; its successor, if one should take over."""
        clean = life.done and life.killed_for != "hang"
        case, figures = (None, None) if clean else _in_flight(life.inflight)
        if figures is not None and _further(figures, life.stats):
            life.stats = figures
        self.finished.append((life.number, life.stats))
        life.inflight.unlink(missing_ok=True)
        if life.error:
            self.stop()
            raise UsageError(life.error)
        units = life.units
        if clean:
            return None
        target = self.names[life.current.value] if 0 <= life.current.value < len(self.names) else None
        code = life.process.exitcode
        if life.killed_for in _RUN_ENDED:
            if target is not None:
                self.emit(Note(f"worker {life.number} was still running {target} when the run "
                               f"{'was stopped' if life.killed_for == 'stopped' else 'had to end'}; ended it "
                               "(not a finding)"))
            return None
        if life.killed_for == "hang":
            kind, detail = "hang", f"still running {self.hang_after:.1f} s into the case; worker killed"
        else:
            kind, detail = death_of(code, "the worker")
            if kind == "memory":
                detail = f"{detail} ({_size(_cap(self.config.memory_cap))})"
        if self.stopping and target is None:
            return None  # killed while stopping, between cases: nothing lost
        if target is None:
            self.emit(Note(f"worker {life.number} died outside any target ({detail})"))
            self.deaths[""] = self.deaths.get("", 0) + 1
            if self.deaths[""] >= MAX_DEATHS:
                # Not a target's doing: the harness itself cannot run here, and a run that goes on
                # with no workers would end "clean" having searched nothing.
                self.stop()
                raise UsageError(f"workers died {MAX_DEATHS} times outside any target (last: {detail}); "
                                 "their stderr above says why")
        else:
            self._death(life, target, kind, detail, case)
            units = self._without_quarantined(units)
        out_of_time = time.monotonic() >= self.deadline - 0.5
        if self.stopping or out_of_time or self.deaths.get("", 0) >= MAX_DEATHS or not units:
            return None
        self.stats.restarts += 1
        return self._start(life.number, life.life + 1, units)

    def _death(self, life: _Life, target: str, kind: str, detail: str, case: Case | None) -> None:
        self.deaths[target] = self.deaths.get(target, 0) + 1
        if case is None:
            self.emit(Note(f"{target}: {kind} ({detail}), but the case in flight could not be read"))
            return
        # The case was not shrunk, so its features say nothing about the death: all of them count as
        # plain, the signature is <target>/<kind>/plain, and the smallest case of each is the one kept.
        output = read_kept(*output_files(life.inflight)) or None
        self._found(Finding(self.targets[target], Divergence(kind, detail), case, Observation(output=output),
                            frozenset(case.features), life.seed, unshrunk=True))

    def _without_quarantined(self, units: tuple[Unit, ...]) -> tuple[Unit, ...]:
        out = []
        for unit in units:
            kept = tuple(t for t in unit.targets if self.deaths.get(t, 0) < MAX_DEATHS)
            for t in unit.targets:
                if t not in kept and t not in self.stats.quarantined:
                    self.stats.quarantined.append(t)
                    self.emit(Note(f"{t}: killed {MAX_DEATHS} workers; left out of the rest of this run"))
            if kept:
                out.append(replace(unit, targets=kept))
        return tuple(out)

    def _totals(self, lives: list[_Life]) -> Stats:
        """The run's figures: every ended life's and every live one's, added up, with the supervisor's own."""
        own = self.stats
        stats = Stats(started=own.started, startup=own.startup, divergences=own.divergences, workers=own.workers,
                      restarts=own.restarts, quarantined=own.quarantined, hits=dict(own.hits), first_seen=dict(own.first_seen),
                      affected={sig: set(names) for sig, names in own.affected.items()},
                      also_as={sig: set(kinds) for sig, kinds in own.also_as.items()})
        for _, done in self.finished:
            stats.add(done)
        for life in lives:
            stats.add(life.stats)
        stats.stopped_by = StopReason.of_workers(done.stopped_by for _, done in self.finished)
        return stats


def _in_flight(path: Path) -> tuple[Case | None, Stats | None]:
    """The case a worker was on when it ended, and its figures up to that case; (None, None) if there is none."""
    try:
        case, figures = pickle.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
        return None, None
    return case, figures


def _in_flight_folder(state: Path) -> Path:
    """A folder of this run's own for its workers' cases in flight: in memory (``/dev/shm``) where there is
    one, since a worker writes there before every call and a record on disk costs a millisecond each (as much
    as a tenth of a case's time); else under ``state``.  Its files must outlive a worker, not the machine."""
    memory = Path("/dev/shm")
    parent = memory if memory.is_dir() and os.access(memory, os.W_OK) else state / "inflight"
    parent.mkdir(parents=True, exist_ok=True)
    # A run killed with SIGKILL leaves its folder: the next run takes away those whose run is gone.
    for left in parent.glob(f"{_IN_FLIGHT}*-*"):
        pid = left.name[len(_IN_FLIGHT):].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{_IN_FLIGHT}{os.getpid()}-", dir=parent))


#: How the folders of cases in flight begin; the run's process id follows.
_IN_FLIGHT = "toolfuzz-inflight-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's
    return True


def _further(a: Stats, b: Stats) -> bool:
    """Whether figures ``a`` of one worker were taken after ``b``: everything a search does feeds work."""
    return (a.work + a.reducing_work, a.examples) > (b.work + b.reducing_work, b.examples)


#: What the fork server is started with, so that it imports as this process does: no current folder first
#: (``python -c`` would put it there), and this process's import path.
_SAFE_PATH = "PYTHONSAFEPATH"
_PATH = "PYTHONPATH"


def _start_fork_server() -> None:
    """Start the fork server (once a process), importing toolfuzz from where this process did.

    The fork server is ``python -c ...``, which puts the current folder first on its path; it imports the
    harness before any worker asks (its preload).  From a folder that holds a ``toolfuzz/`` of its own (the
    parent of a clone, another checkout), it imported that one, and every worker died on it.  Python 3.11's
    fork server takes no path of its own, so it is given this process's path through its environment
    (which each worker then sets back to the supervisor's, WorkerConfig.environ).
    """
    saved = {name: os.environ.get(name) for name in (_SAFE_PATH, _PATH)}
    os.environ[_SAFE_PATH] = "1"
    os.environ[_PATH] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p)
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _signal(life: _Life, signum: int) -> None:
    try:
        if life.process.pid is not None and life.process.is_alive():
            os.kill(life.process.pid, signum)
    except ProcessLookupError:
        pass


def _cap(n: int | None) -> int | None:
    """The address space a worker gets with ``--memory-cap`` ``n``: a lower limit this process has stands."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[1]
    if limit == resource.RLIM_INFINITY:
        return n
    return limit if not n else min(n, limit)


def _size(n: int | None) -> str:
    return "none" if not n else f"{n / 2**20:.0f} MiB"
