"""toolfuzz.engine.runner: workers by default, this process when asked, and the same events either way."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.paths import DATA, ROOT
from toolfuzz.engine.events import Finished, Found, Note, Progress, Started, Stats
from toolfuzz.engine.runner import execute
from toolfuzz.engine.settings import RunConfig
from toolfuzz.engine.search import FINISHING_SHARE
from toolfuzz.engine.supervisor import Supervisor
from toolfuzz.errors import UsageError
from toolfuzz.targets.specs import resolve_all

# These runs are held to their budgets in wall-clock seconds: .ci/run runs them alone, after the tests that run
# on every core, so that the other cores' work is not counted as theirs.
pytestmark = pytest.mark.serial

HOSTILE = DATA / "hostile.py"
#: What a run started in the checkout files its functions under: the file named as a module from there.
HOSTILE_NAME = "tests.data.hostile"
#: A target that tries to phone home on every case: found on the first example, already as plain as it gets,
#: so each transport's run ends in a few seconds (every later case repeats the known finding).
SPEC = f"{HOSTILE}:phone"


def config_for(tmp_path, **transport) -> RunConfig:
    targets = resolve_all([SPEC])
    return RunConfig(targets=tuple(targets), specs=(SPEC,), level="events", dialect="openai-chat",
                     profiles=None, tools=None, max_examples=60, budget=600, seed=3, timeout=30.0,
                     state=tmp_path / "state", **transport)


def events_of(tmp_path, **transport) -> list:
    seen: list = []
    stats = execute(config_for(tmp_path, **transport), seen.append)
    assert seen[-1] == Finished(stats)
    return seen


@pytest.mark.parametrize("transport,workers", [({"in_process": True}, 0), ({}, 1), ({"workers": 2}, 2)])
def test_this_process_one_worker_and_two_emit_the_same_kinds_of_event_in_the_same_order(tmp_path, transport,
                                                                                         workers):
    (name,) = [t.name for t in resolve_all([SPEC])]
    seen = events_of(tmp_path, **transport)
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


def test_by_default_the_targets_run_in_a_worker(tmp_path, monkeypatch):
    supervised = []
    monkeypatch.setattr(Supervisor, "run", lambda self: supervised.append(self.config.workers) or Stats())
    execute(config_for(tmp_path), lambda event: None)
    assert supervised == [1]


@pytest.mark.parametrize("transport", [{"workers": 2}, {"shard": (1, 2)}])
def test_a_search_in_this_process_is_one_search(tmp_path, transport):
    with pytest.raises(UsageError, match="--in-process runs one search in this process"):
        execute(config_for(tmp_path, in_process=True, **transport), lambda event: None)


#: Seconds of search in the runs below, and the per-case time limit of the hanging target's run: it is killed
#: once it runs past twice that, plus the supervisor's grace of 1 s.
BUDGET = 3.0
SHORT = 0.3
FINE = "selftest-plain"


def on_time(budget: float, timeout: float = 5.0) -> float:
    """The most a run may take past its start-up: its budget and the share of it for finishing, the grace a call
    still in flight then gets before its worker is ended, and a second for ending the processes (with room for
    a loaded machine: a run that does not end on time takes many more)."""
    return (1 + FINISHING_SHARE) * budget + max(1.0, timeout / 2) + 1.0


def run_beside_a_fine_target(tmp_path, fn: str, *extra: str, budget: float = BUDGET) -> tuple[int, dict, str]:
    """``toolfuzz run`` as a user runs it (its own process, its own fork server), with no transport named."""
    argv = ["run", "--target", FINE, "--target", f"{HOSTILE}:{fn}", "--budget", str(budget), "--seed", "2",
            "--findings", str(tmp_path / "findings"), "--state", str(tmp_path / "state"), "--json", *extra]
    done = subprocess.run([sys.executable, "-m", "toolfuzz", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.stdout, done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("fn,kind,words,extra", [
    ("exit_sometimes", "crash", "exited with status 3", ()),
    ("segfault_sometimes", "crash", "killed by SIGSEGV", ()),
    # The default cap: 2 GiB of address space a worker.
    ("hog_sometimes", "memory", "MemoryError under the memory cap (2048 MiB)", ()),
    ("hang_sometimes", "hang", "still running 1.6 s into the case", ("--timeout", str(SHORT))),
])
def test_a_target_that_takes_its_process_down_is_one_finding_and_the_run_goes_on_on_time(tmp_path, fn, kind, words,
                                                                                          extra):
    code, summary, err = run_beside_a_fine_target(tmp_path, fn, *extra)
    targets = {t["name"]: t for t in summary["targets"]}
    [finding] = targets[f"{HOSTILE_NAME}:{fn}"]["divergences"]
    assert (finding["kind"], code) == (kind, 1) and words in finding["detail"], (finding, err[-3000:])
    # The target beside it ran on, its examples counted.
    assert targets[FINE]["examples"] > 0
    if kind != "hang":  # a hang takes 1.6 s to tell, and a fine call could time out under its short limit
        assert targets[FINE]["divergences"] == [] and summary["restarts"] >= 1
    timeout = float(extra[1]) if "--timeout" in extra else 5.0
    assert summary["seconds"] - summary["startup_seconds"] <= on_time(BUDGET, timeout), summary


def test_a_slow_target_s_run_ends_within_its_budget_and_its_share_for_finishing(tmp_path):
    # A second a call, and a divergence on every case: the first case's reduction, from the first
    # second on, would go on past the budget, a probe a second.
    code, summary, err = run_beside_a_fine_target(tmp_path, "slow_drop", "--timeout", "4", budget=2.0)
    [slow] = [t for t in summary["targets"] if t["name"] == f"{HOSTILE_NAME}:slow_drop"]
    assert code == 1 and slow["divergences"], err[-3000:]
    assert summary["seconds"] - summary["startup_seconds"] <= on_time(2.0, 4.0), summary
    # By itself: its worker stopped reducing in time, and was not ended with what it was on.
    assert "had to end" not in err, err[-3000:]


def test_a_call_deaf_to_everything_when_the_budget_ends_is_ended_on_time_and_is_no_finding(tmp_path):
    # It hangs, where the time limit cannot reach, from 2 s after it was loaded on: across the end of a 3-s
    # budget, long before twice the 5-s time limit would call it a hang.
    code, summary, err = run_beside_a_fine_target(tmp_path, "hang_late")
    targets = {t["name"]: t for t in summary["targets"]}
    assert targets[f"{HOSTILE_NAME}:hang_late"]["divergences"] == [] and targets[FINE]["examples"] > 0, err[-3000:]
    assert "when the run had to end; ended it (not a finding)" in err
    assert summary["seconds"] - summary["startup_seconds"] <= on_time(BUDGET), summary
