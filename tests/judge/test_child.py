"""toolfuzz.judge.child: a target run in a child process; each way the child can end is reported as what it is."""

from __future__ import annotations


import pytest

from toolfuzz.judge.compare import Divergence
from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.child import observe_isolated
from toolfuzz.judge.sandbox import Observation, observe
from toolfuzz.judge.contestants import resolve_all
from tests.paths import DATA, ROOT

HOSTILE = DATA / "hostile.py"
CASE = load(ROOT / "findings" / "seed" / "two-calls-interleaved.json").case


def hostile(fn: str):
    [target] = resolve_all([f"{HOSTILE}:{fn}"], "events")
    return target


def test_a_target_that_answers_gives_the_same_observation_as_in_process():
    [reference] = resolve_all(["reference"], "events")
    isolated = observe_isolated(reference, CASE, None, 5.0)
    assert isinstance(isolated, Observation)
    assert isolated.calls == observe(reference, CASE, None, 5.0).calls and isolated.calls


@pytest.mark.parametrize("fn,kind,words", [
    ("segv", "crash", "SIGSEGV"),
    ("leave", "crash", "SystemExit"),
    ("hang", "hang", "still running"),
])
def test_each_death_of_the_child_is_its_kind_and_the_caller_lives_on(fn, kind, words):
    result = observe_isolated(hostile(fn), CASE, None, 0.3)
    assert isinstance(result, Divergence) and result.kind == kind and words in result.detail, result


def test_allocation_without_bound_meets_the_cap_as_memory():
    result = observe_isolated(hostile("hog"), CASE, None, 30.0, headroom=256 * 2**20)
    assert result == Divergence("memory", "MemoryError under the replay's memory cap")


def test_a_socket_in_the_child_is_still_refused():
    result = observe_isolated(hostile("phone"), CASE, None, 5.0)
    assert isinstance(result, Observation) and result.blocked and "socket.connect" in result.blocked
