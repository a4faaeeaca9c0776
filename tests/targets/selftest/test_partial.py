"""The partial level: correct partial parsers stay quiet, each parser broken in one rule is found as that rule."""

from __future__ import annotations

import pytest

from toolfuzz import strategies
from toolfuzz.engine.search import search, search_for_kind
from toolfuzz.targets.specs import plain_target
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.registry import REFERENCE_PARTIAL
from toolfuzz.targets.selftest import SELFTEST
from tests.paths import DATA

#: Far past what these searches take: each ends by its examples or by finding its kind, never by time.
BUDGET = 600
SEED = 0
PARTIAL = [m for m in SELFTEST if m.level == "partial"]


def _load_settled():
    import importlib.util
    spec = importlib.util.spec_from_file_location("settled_prefix", DATA / "settled_prefix.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parse


def test_the_mutants_cover_every_rule_but_the_complete_texts():
    from toolfuzz.judge.compare_partial import PARTIAL_KINDS
    assert sorted(m.mistake for m in PARTIAL) == sorted(set(PARTIAL_KINDS) - {"final_differs", "type_differs",
                                                                            "scalar_differs"})


def test_correct_partial_parsers_get_no_divergence_in_2000_examples():
    settled = plain_target(_load_settled(), "settled-prefix", "partial")
    findings, stats = search([REFERENCE_PARTIAL, settled], Planner(), max_examples=2000, budget=BUDGET, seed=SEED,
                             plain=strategies.PLAIN_FEATURES)
    assert stats.stopped_by == "examples" and stats.examples == 2000
    assert [f.signature for f in findings] == []
    assert stats.by_target["settled-prefix"] == 2000


@pytest.mark.parametrize("mutant", PARTIAL, ids=[m.name for m in PARTIAL])
def test_each_partial_mutant_is_found_as_its_rule_on_one_call(mutant):
    mine, tries = search_for_kind(mutant, mutant.mistake, Planner(), seed=SEED, max_examples=2000, budget=BUDGET,
                                  plain=strategies.PLAIN_FEATURES)
    assert all(t.stopped_by != "budget" for t in tries)
    assert mine, f"{mutant.name}: no {mutant.mistake}"
    smallest = min(mine, key=lambda f: len(f.case.expected.calls))
    assert smallest.divergence.kind == mutant.mistake
    assert len(smallest.case.expected.calls) == mutant.extra["minimal"]["calls"], smallest.signature
