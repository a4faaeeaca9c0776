"""Every fixture under findings/ replays on the reference: the expected outcome, however it was recorded."""


import pytest

from toolfuzz.corpus.fixtures import iter_fixture_paths, load
from toolfuzz.corpus.replay import fixed_in, load_fixtures, replay
from toolfuzz.targets.reference import assemble
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
PATHS = iter_fixture_paths([str(FINDINGS)])


def test_there_are_findings_to_replay():
    assert len(PATHS) >= 7


@pytest.mark.parametrize("path", PATHS, ids=[str(p.relative_to(FINDINGS)) for p in PATHS])
def test_the_reference_gives_the_expected_outcome(path):
    case = load(path).case
    assert assemble(case.reads, case.tools, case.limits, case.dialect) == case.expected
    # and the same however the wire is read
    wire = case.wire
    assert assemble([wire], case.tools, case.limits, case.dialect) == case.expected
    assert assemble([wire[i:i + 1] for i in range(len(wire))], case.tools, case.limits, case.dialect) == case.expected


@pytest.mark.parametrize("dialect", ["openai-responses", "anthropic"])
def test_every_dialect_has_its_seed_fixtures(dialect):
    seeds = [load(p).case for p in PATHS if p.parent.name == f"seed-{dialect.removeprefix('openai-')}"]
    assert len(seeds) == 5 and {c.dialect for c in seeds} == {dialect}


def test_every_recorded_target_still_behaves_as_recorded():
    report = replay(load_fixtures([str(FINDINGS)]))
    unexpected = [(c.fixture.label, c.target, c.verdict) for c in report.cells if c.unexpected]
    assert report.exit_code == 0 and not unexpected, unexpected
    # The self-test mutants never change: each of their fixtures still fails, the way it was recorded.
    selftest = [c for c in report.cells if c.recorded and c.target.startswith("selftest-")]
    assert len(selftest) >= 9
    assert {c.verdict for c in selftest} == {"still fails"}, [(c.fixture.label, c.verdict) for c in selftest]
    # A real library that fixed its bug makes its fixture pass: reported as fixed, in which version, not failed.
    libraries = [c for c in report.cells if c.recorded and not c.target.startswith("selftest-")]
    assert {c.verdict for c in libraries} <= {"still fails", "changed", "fixed", "skipped"}
    for c in libraries:
        if c.verdict == "fixed":
            print(f"{c.fixture.path.relative_to(FINDINGS)}: {fixed_in(c)}")
