"""toolfuzz.judge.child: a target run in a child process; each way the child can end is reported as what it is."""

from __future__ import annotations


import pytest

from toolfuzz.judge.compare import Divergence
from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.child import observe_isolated
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.specs import resolve_all
from tests.paths import DATA, ROOT

HOSTILE = DATA / "hostile.py"
CASE = load(ROOT / "findings" / "seed" / "two-calls-interleaved.json").case
#: The time limit for targets that answer or die at once: far above what they take, so that only a
#: hang reaches it, however loaded the machine.  A target that must hang loops forever by construction,
#: and gets the short limit: no speed of the machine makes it answer.
GENEROUS = 120.0
SHORT = 0.3


def hostile(fn: str):
    [target] = resolve_all([f"{HOSTILE}:{fn}"], "events")
    return target


def test_a_target_that_answers_gives_the_same_observation_as_in_process():
    [reference] = resolve_all(["reference"], "events")
    isolated = observe_isolated(reference, CASE, None, GENEROUS)
    assert isinstance(isolated, Observation)
    assert isolated.calls == observe(reference, CASE, None, GENEROUS).calls and isolated.calls


@pytest.mark.parametrize("fn,kind,words,timeout", [
    ("segv", "crash", "SIGSEGV", GENEROUS),
    ("leave", "crash", "SystemExit", GENEROUS),
    ("hang", "hang", "still running", SHORT),
])
def test_each_death_of_the_child_is_its_kind_and_the_caller_lives_on(fn, kind, words, timeout):
    result = observe_isolated(hostile(fn), CASE, None, timeout)
    assert isinstance(result, Divergence) and result.kind == kind and words in result.detail, result


def test_allocation_without_bound_meets_the_cap_as_memory():
    result = observe_isolated(hostile("hog"), CASE, None, GENEROUS, headroom=256 * 2**20)
    assert result == Divergence("memory", "MemoryError under the replay's memory cap")


def test_a_socket_in_the_child_is_still_refused():
    result = observe_isolated(hostile("phone"), CASE, None, GENEROUS)
    assert isinstance(result, Observation) and result.blocked and "socket.connect" in result.blocked


def test_a_raise_in_the_child_comes_back_with_its_crash_state(tmp_path):
    path = tmp_path / "deep_assembler.py"
    path.write_text("def find(chunks):\n    raise KeyError(len(chunks))\n\n\n"
                    "def assemble(chunks):\n    return find(chunks)\n")
    [target] = resolve_all([f"{path}:assemble"], "events")
    isolated = observe_isolated(target, CASE, None, GENEROUS)
    assert isinstance(isolated, Observation) and isolated.raised.startswith("KeyError: ")
    assert str(isolated.crash_state) == "KeyError at deep_assembler.find < deep_assembler.assemble"
