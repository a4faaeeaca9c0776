"""One run's settings, in one frozen object: what the run, its supervisor, each worker and each search read.

``toolfuzz run`` builds a :class:`RunConfig` once, from its arguments.  The supervisor hands each worker the
same object, less its loaded targets (:meth:`RunConfig.portable`: a worker resolves the specs again), beside
what is the worker's own (:class:`toolfuzz.engine.worker.WorkerConfig`); a search takes the part it needs
(:class:`toolfuzz.engine.search.SearchSettings`).  No copy of a setting lives anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from toolfuzz.vocabulary import Case
from toolfuzz.targets.base import Target

__all__ = ["RunConfig"]


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs, whichever transport carries it."""

    targets: tuple[Target, ...]
    #: The ``--target`` specs the targets came from: each worker resolves them again.
    specs: tuple[str, ...]
    level: str
    dialect: str
    #: ``--profile``s, or None for every profile of the dialect.
    profiles: tuple[str, ...] | None
    #: The tool file, or None for the bundled corpus; each worker loads it again.
    tools: str | None
    max_examples: int
    budget: float
    seed: int
    timeout: float
    workers: int = 1
    shard: tuple[int, int] | None = None
    #: The address space of each worker process, or None for none (not applied in_process).
    memory_cap: int | None = None
    #: Search in this process instead of a worker (one search: no workers, no shard).
    in_process: bool = False
    state: Path = Path(".toolfuzz")
    #: Where failing examples are kept between runs (a path, ``redis://...``, or None).
    database: str | None = None
    #: Whether each rewrite of the tool file's schemas is said, rather than their count by kind.
    verbose: bool = False
    #: The producer level's formats (text dialects) its cases are drawn in; () for a run in one wire dialect.
    dialects: tuple[str, ...] = ()
    #: ``--server``s: only the shapes those servers are known to send are drawn (None: every shape).
    servers: tuple[str, ...] | None = None
    #: ``--grow-from``: real captures, (origin, case), that some cases are grown from (toolfuzz.strategies.captured).
    captured: tuple[tuple[str, Case], ...] = ()

    def portable(self) -> RunConfig:
        """These settings as they cross to a worker: without the loaded targets, which need not pickle."""
        return replace(self, targets=())
