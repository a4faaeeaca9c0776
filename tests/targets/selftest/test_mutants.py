"""The harness finds every self-test mutant and shrinks it to its known minimal form; correct targets stay quiet."""

from __future__ import annotations


import pytest

from toolfuzz.corpus.fixtures import iter_fixture_paths, load
from toolfuzz.judge.feeding import chunks_of, parse_chunks
from toolfuzz.engine.search import search, search_for_kind
from toolfuzz.targets.registry import REFERENCE
from toolfuzz.targets.selftest import PLAIN, SELFTEST
from toolfuzz.targets.selftest.plain import assemble_chunks
from toolfuzz.vocabulary import Tool

from toolfuzz import strategies
from toolfuzz.strategies.cases import Planner
from tests.paths import ROOT


#: Far past what these searches take (seconds): each ends by its examples or by finding its kind,
#: never by time, so what it finds depends on the seed alone and not on the machine.
BUDGET = 600
#: Any seed: every chat mutant reduces to its known minimum on every seed of the ten that
#: ``python -m bench.selftest`` measures.
SEED = 0
# The other dialects: tests/targets/selftest/test_dialects.py; the partial parsers: test_partial.py.
CHAT = [m for m in SELFTEST if "openai-chat" in m.dialects and m.level != "partial"]
#: One tool with a short string argument: the mutants' mistakes show on it as on the bundled corpus, and
#: its cases shrink in a few seconds where the corpus's take up to half a minute a mutant.  The search on
#: the bundled corpus, over ten seeds, is ``python -m bench.selftest``'s.
SMALL = [Tool("get_weather", {"type": "object", "properties": {"city": {"type": "string", "maxLength": 8}},
                              "required": ["city"], "additionalProperties": False})]
#: Examples the correct targets are searched for here; ``python -m bench.selftest`` searches 1500 and more.
QUIET_EXAMPLES = 1500


def _never_out_of_time(stats):
    assert stats.stopped_by != "budget", f"a search ran out of its {BUDGET} s: its result depends on the machine"


@pytest.fixture(scope="module")
def quiet():
    findings, stats = search([REFERENCE, PLAIN], Planner(), max_examples=QUIET_EXAMPLES, budget=BUDGET,
                             seed=SEED, plain=strategies.PLAIN_FEATURES)
    _never_out_of_time(stats)
    assert stats.examples == QUIET_EXAMPLES
    return findings


@pytest.fixture(scope="module")
def found():
    """Each chat mutant searched alone (as the benchmark does) until its own mistake turns up."""
    out = {}
    for mutant in CHAT:
        mine, tries = search_for_kind(mutant, mutant.mistake, Planner(SMALL), seed=SEED, max_examples=2000,
                                      budget=BUDGET, plain=strategies.PLAIN_FEATURES)
        for stats in tries:
            _never_out_of_time(stats)
        out[mutant.name] = mine
    return out


def test_the_correct_targets_never_diverge(quiet):
    assert [f.signature for f in quiet] == []


@pytest.mark.parametrize("mutant", CHAT, ids=[m.name for m in CHAT])
def test_every_mutant_is_found_with_its_mistake_and_shrunk_to_its_minimum(found, mutant):
    mine = found[mutant.name]
    assert mine, f"{mutant.name}: no {mutant.mistake}"
    smallest = min(mine, key=lambda f: (len(f.case.expected.calls), len(f.case.reads)))
    minimal = mutant.extra["minimal"]
    assert len(smallest.case.expected.calls) == minimal["calls"], smallest.signature
    assert len(smallest.case.reads) <= minimal["reads"], smallest.signature


def test_the_shared_buffer_shrinks_to_two_interleaved_calls_of_one_fragment_each(found):
    (f,) = [f for f in found["selftest-shared-buffer"] if len(f.case.expected.calls) == 2][:1]
    chunks = [c for c in _chunks(f.case)]
    fragments = [tc for c in chunks for ch in c.get("choices") or [] for tc in (ch.get("delta") or {}).get("tool_calls") or []
                 if (tc.get("function") or {}).get("arguments")]
    assert len(fragments) <= 3 and "interleaved" in f.features


def _chunks(case):
    return parse_chunks(chunks_of(case))


def test_the_plain_assembler_agrees_with_the_reference_on_the_seed_fixtures():
    for path in iter_fixture_paths([str(ROOT / "findings" / "seed")]):
        case = load(path).case
        got = assemble_chunks(_chunks(case))
        finished = [c for c in case.expected.calls if c.status != "incomplete"]
        assert [(c["id"], c["name"], c["arguments"]) for c in got if c["complete"]] == \
            [(c.id, c.name, c.arguments) for c in finished], path.name
