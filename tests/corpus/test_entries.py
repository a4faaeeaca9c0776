"""A corpus's entries: the signature each fixture is known by, and the statement each library fixture carries."""

from __future__ import annotations

import dataclasses

from toolfuzz.corpus.entries import load_corpus, signature
from toolfuzz.corpus.fixtures import dumps, load, loads
from toolfuzz.corpus.grades import diverging
from toolfuzz.targets.selftest import PLAIN, SELFTEST
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"


def test_a_fixture_signature_is_the_one_its_run_recorded_and_can_be_worked_out_without_it():
    entries = [e for e in load_corpus([str(FINDINGS)]) if e.path.parent.name.startswith("selftest-")]
    assert len(entries) >= 9
    for e in entries:
        assert e.signature == e.fixture.found["signature"], e.path
        unsigned = dataclasses.replace(e.fixture, found={"by": "hand"})
        assert signature(unsigned) == e.fixture.found["signature"], e.path


def test_every_library_fixture_says_what_goes_wrong_for_its_user():
    # A maintainer reads the statement first (findings/README.md): a library's divergence without one has not
    # been checked against the library's code.  The self-test mutants' fixtures need none.
    mutants = {t.name for t in (PLAIN, *SELFTEST)}
    unstated = sorted(e.path.relative_to(FINDINGS).as_posix() for e in load_corpus([str(FINDINGS)])
                      if not e.fixture.statement.strip()
                      and any(target not in mutants for target, _ in diverging(e.fixture)))
    assert not unstated, f"{len(unstated)} library fixtures without a statement:\n" + "\n".join(unstated)


def test_a_fixture_with_no_recorded_divergence_is_known_by_its_content(tmp_path):
    a = load(SEED / "cut-inside-string.json")
    assert signature(a).startswith("case/") and signature(a) == signature(loads(dumps(a)))
    renamed = dataclasses.replace(a, name="another name", description="words")
    assert signature(renamed) == signature(a)  # the same case under another name is the same fixture
    assert signature(load(SEED / "cut-after-backslash.json")) != signature(a)
