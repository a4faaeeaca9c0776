"""The harness finds every self-test mutant and shrinks it to its known minimal form; correct targets stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.fixture import iter_fixture_paths, load
from harness.observe import chunks_of, parse_chunks
from harness.search import search
from targets.registry import REFERENCE
from targets.selftest import PLAIN, SELFTEST
from targets.selftest.plain import assemble_chunks

import strategies


@pytest.fixture(scope="module")
def run():
    strategy = strategies.cases()
    findings, stats = search([REFERENCE, PLAIN, *SELFTEST], strategy, max_examples=1500, budget=150, seed=20261202,
                             plain=strategies.PLAIN_FEATURES)
    return findings, stats


def test_the_correct_targets_never_diverge(run):
    findings, _ = run
    assert [f.signature for f in findings if f.target.name in (REFERENCE.name, PLAIN.name)] == []


CHAT = [m for m in SELFTEST if "openai-chat" in m.dialects]  # the others: tests/test_selftest_dialects.py


@pytest.mark.parametrize("mutant", CHAT, ids=[m.name for m in CHAT])
def test_every_mutant_is_found_with_its_mistake_and_shrunk_to_its_minimum(run, mutant):
    findings, _ = run
    mine = [f for f in findings if f.target.name == mutant.name and f.divergence.kind == mutant.mistake]
    assert mine, f"{mutant.name}: no {mutant.mistake}; found {sorted(f.signature for f in findings if f.target is mutant)}"
    smallest = min(mine, key=lambda f: (len(f.case.expected.calls), len(f.case.reads)))
    minimal = mutant.extra["minimal"]
    assert len(smallest.case.expected.calls) == minimal["calls"], smallest.signature
    assert len(smallest.case.reads) <= minimal["reads"], smallest.signature


def test_the_shared_buffer_shrinks_to_two_interleaved_calls_of_one_fragment_each(run):
    findings, _ = run
    (f,) = [f for f in findings if f.signature.startswith("selftest-shared-buffer/arguments_misattributed/")
            and len(f.case.expected.calls) == 2][:1]
    chunks = [c for c in _chunks(f.case)]
    fragments = [tc for c in chunks for ch in c.get("choices") or [] for tc in (ch.get("delta") or {}).get("tool_calls") or []
                 if (tc.get("function") or {}).get("arguments")]
    assert len(fragments) <= 3 and "interleaved" in f.features


def _chunks(case):
    return parse_chunks(chunks_of(case))


def test_the_plain_assembler_agrees_with_the_reference_on_the_seed_fixtures():
    for path in iter_fixture_paths([str(Path(__file__).resolve().parent.parent / "findings" / "seed")]):
        case = load(path).case
        got = assemble_chunks(_chunks(case))
        finished = [c for c in case.expected.calls if c.status != "incomplete"]
        assert [(c["id"], c["name"], c["arguments"]) for c in got if c["complete"]] == \
            [(c.id, c.name, c.arguments) for c in finished], path.name
