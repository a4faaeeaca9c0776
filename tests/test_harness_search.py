"""The search's rounds: a long search is many bounded Hypothesis runs, and only rounds that find something count."""

from __future__ import annotations

import strategies
from harness.search import search
from targets.registry import REFERENCE, builtin_targets

PLAIN_CASES = strategies.cases(profiles=["openai"])


def test_a_round_ended_by_its_cap_is_followed_by_another_until_the_examples_run_out():
    # The reference never diverges: without the cap this is one Hypothesis run of 90 examples.
    _, stats = search([REFERENCE], PLAIN_CASES, max_examples=90, budget=600, seed=1, round_examples=30)
    assert (stats.examples, stats.rounds, stats.stopped_by) == (90, 3, "examples")


def test_rounds_ended_only_by_the_cap_do_not_use_up_max_rounds():
    _, stats = search([REFERENCE], PLAIN_CASES, max_examples=90, budget=600, seed=1, round_examples=30,
                      max_rounds=1)
    assert (stats.examples, stats.rounds, stats.stopped_by) == (90, 3, "examples")


def test_max_rounds_still_bounds_the_rounds_that_find_something():
    mutant = builtin_targets()["selftest-concat-names-and-ids"]
    findings, stats = search([mutant], strategies.cases(), max_examples=5000, budget=600, seed=3, round_examples=1000,
                             max_rounds=1)
    assert findings and stats.stopped_by == "rounds"
    assert stats.examples < 5000
