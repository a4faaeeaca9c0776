"""toolfuzz.engine.runner: one process and many workers are two transports of the same events."""

from __future__ import annotations

from tests.paths import DATA
from toolfuzz.engine.events import Finished, Found, Note, Progress, Started, Stats
from toolfuzz.engine.runner import RunConfig, execute
from toolfuzz.judge.contestants import resolve_all

#: A target that tries to phone home on every case: found on the first example, already as plain as it gets,
#: so each transport's run ends in a few seconds (every later case repeats the known finding).
SPEC = f"{DATA / 'hostile.py'}:phone"


def events_of(tmp_path, workers: int) -> list:
    targets = resolve_all([SPEC])
    config = RunConfig(targets=tuple(targets), specs=(SPEC,), level="events", dialect="openai-chat",
                       profiles=None, tools=None, max_examples=60, budget=600, seed=3, timeout=30.0,
                       workers=workers, state=tmp_path / f"state-{workers}")
    seen: list = []
    stats = execute(config, seen.append)
    assert seen[-1] == Finished(stats)
    return seen


def test_one_process_and_two_workers_emit_the_same_kinds_of_event_in_the_same_order(tmp_path):
    (name,) = [t.name for t in resolve_all([SPEC])]
    for workers in (1, 2):
        seen = events_of(tmp_path, workers)
        assert isinstance(seen[0], Started) and seen[0].workers == workers
        assert all(isinstance(e, (Progress, Found, Note)) for e in seen[1:-1])
        found = [e.finding for e in seen if isinstance(e, Found)]
        # Both workers meet it; the supervisor folds the second into the first, as one process does
        # with every later case: one root cause, reported once, and the rest counted as its hits.
        assert [f.divergence.kind for f in found] == ["blocked_action"], (workers, found)
        assert seen[-1].stats.hits[found[0].signature] >= 1
        # A worker's finding crosses the pipe whole: the case, and what the target did with it.
        assert all(f.target.name == name and "socket" in f.observation.blocked for f in found)
        assert all(f.seed is not None and f.case.reads for f in found)
        stats = seen[-1].stats
        assert isinstance(stats, Stats) and stats.examples > 0 and stats.by_target[name] == stats.examples
        assert stats.workers == workers and stats.divergences == {name: 1}
