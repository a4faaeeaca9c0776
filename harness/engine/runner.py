"""A run as ``toolfuzz run`` starts it: the search in worker processes, or, when asked, in this one.

:func:`execute` is the one entry point.  It picks the transport: a
supervisor of worker processes (:mod:`toolfuzz.engine.supervisor`), one
worker unless more are asked for, so that a target that crashes, exits,
hangs where the time limit cannot reach or runs out of memory is a finding
and the run goes on, as libFuzzer's fork mode and ClusterFuzz run targets;
or, with ``in_process``, this process, which is faster (``python -m
bench.workers`` says by how much) and trusts its targets not to take it
down.  Either way it emits the same events (:mod:`toolfuzz.engine.events`)
to the one ``emit`` it is given.  What the run writes or prints is up to
whoever consumes them.
"""

from __future__ import annotations

from toolfuzz.engine.database import namespace_for, open_database
from toolfuzz.engine.events import Emit, Finished, Note, Started, Stats
from toolfuzz.engine.settings import RunConfig
from toolfuzz.engine.search import Search, SearchHooks, SearchSettings
from toolfuzz.engine.signals import Stopping
from toolfuzz.engine.supervisor import Supervisor
from toolfuzz.engine.units import cases_for, units_for
from toolfuzz.errors import UsageError
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.strategies.profiles import DIALECT_PROFILES
from toolfuzz.targets.command import stop_all as stop_programs

__all__ = ["execute"]


def execute(config: RunConfig, emit: Emit, stopping: Stopping | None = None) -> Stats:
    """Run the search, emitting its events; the final figures (also in the last event, :class:`Finished`)."""
    stopping = stopping or Stopping()
    if config.in_process and (config.workers != 1 or config.shard is not None):
        raise UsageError("--in-process runs one search in this process: it takes neither --workers nor --shard")
    names = [t.name for t in config.targets]
    # Built before anything runs, so that a bad tool file or profile is a usage error, not a dead worker.
    planner = cases_for(config.tools, config.profiles, config.dialect, lambda text: emit(Note(text)), config.verbose,
                        config.dialects, config.servers, config.captured)
    # Opened before anything runs, so that a store that cannot be reached is a usage error.
    store = open_database(config.database, namespace_for(names, config.profiles))
    emit(Started(tuple(names), config.seed, config.max_examples, config.budget,
                 0 if config.in_process else config.workers))
    if config.in_process:
        settings = SearchSettings(max_examples=config.max_examples, budget=config.budget, seed=config.seed,
                                  timeout=config.timeout, plain=PLAIN_FEATURES)
        _, stats = Search(list(config.targets), planner, settings, database=store,
                          hooks=SearchHooks(emit=emit, stop=stopping.is_set)).run()
        stats.workers = 0
    else:
        # A producer run has no profiles: its units split by target alone, under one unnamed profile.
        profiles = list(config.profiles or (DIALECT_PROFILES[config.dialect] if not config.dialects else [""]))
        units = units_for(names, profiles, config.shard, bool(config.profiles))
        supervisor = Supervisor(config, units, plain=PLAIN_FEATURES, emit=emit)
        stopping.then(supervisor.stop)
        # The workers serve their own: the programs started here to read the targets' handshakes would hold an
        # import of their library each (a serving engine's, half a gigabyte) for the whole search.  One asked for
        # afterwards is started again, as after any stop.
        stop_programs()
        stats = supervisor.run()
    emit(Finished(stats))
    return stats
