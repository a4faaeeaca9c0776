"""The search's rounds: a long search is many bounded Hypothesis runs, only rounds that find something count,
and a search for one kind tries again until that kind turns up."""

from __future__ import annotations

from toolfuzz import strategies
from toolfuzz.engine.search import search, search_for_kind
from toolfuzz.targets.registry import REFERENCE
from toolfuzz.targets.selftest import SELFTEST

PLAIN_CASES = strategies.cases(profiles=["openai"])
#: The mutants by name, without builtin_targets(), which imports every installed library adapter (seconds).
MUTANTS = {m.name: m for m in SELFTEST}


def test_a_round_ended_by_its_cap_is_followed_by_another_until_the_examples_run_out():
    # The reference never diverges: without the cap this is one Hypothesis run of 90 examples.
    _, stats = search([REFERENCE], PLAIN_CASES, max_examples=90, budget=600, seed=1, round_examples=30)
    assert (stats.examples, stats.rounds, stats.stopped_by) == (90, 3, "examples")


def test_rounds_ended_only_by_the_cap_do_not_use_up_max_rounds():
    _, stats = search([REFERENCE], PLAIN_CASES, max_examples=90, budget=600, seed=1, round_examples=30,
                      max_rounds=1)
    assert (stats.examples, stats.rounds, stats.stopped_by) == (90, 3, "examples")


def test_max_rounds_still_bounds_the_rounds_that_find_something():
    # This mutant diverges on nearly every case: its round finds something at once and shrinks in a moment.
    mutant = MUTANTS["selftest-key-by-id"]
    findings, stats = search([mutant], strategies.cases(), max_examples=5000, budget=600, seed=3, round_examples=1000,
                             max_rounds=1)
    assert findings and (stats.rounds, stats.stopped_by) == (1, "rounds")
    assert stats.examples < 5000


def test_a_search_for_one_kind_hands_back_only_that_kind():
    # On this seed the mutant's first try finds only id_differs, its second arguments_misattributed.
    mutant = MUTANTS["selftest-shared-placeholder"]
    mine, tries = search_for_kind(mutant, "arguments_misattributed", strategies.cases(), seed=0, max_examples=2000,
                                  budget=600)
    assert mine and {f.divergence.kind for f in mine} == {"arguments_misattributed"}
    # A try before the last found another kind: what came back was picked out, not all there was.
    assert 2 <= len(tries) <= 4 and tries[0].divergences and all(s.stopped_by != "budget" for s in tries)


def test_a_try_that_finds_nothing_ends_the_search_for_a_kind():
    mine, tries = search_for_kind(REFERENCE, "call_lost", PLAIN_CASES, seed=0, max_examples=60, budget=600)
    assert mine == [] and len(tries) == 1 and tries[0].examples == 60


def test_a_kind_that_never_turns_up_ends_after_the_tries_allowed():
    # Each try finds something (this mutant misattributes arguments in many shapes), so only the tries run out.
    mutant = MUTANTS["selftest-key-by-id"]
    mine, tries = search_for_kind(mutant, "no-such-kind", strategies.cases(), seed=0, attempts=2, max_examples=2000,
                                  budget=600)
    assert mine == [] and len(tries) == 2 and all(s.divergences for s in tries)
