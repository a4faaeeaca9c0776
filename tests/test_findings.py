"""Every fixture under findings/ replays on the reference: the expected outcome, however it was recorded."""

from pathlib import Path

import pytest

from harness.fixture import iter_fixture_paths, load
from harness.replay import load_fixtures, replay
from targets.reference import assemble

FINDINGS = Path(__file__).resolve().parent.parent / "findings"
PATHS = iter_fixture_paths([str(FINDINGS)])


def test_there_are_findings_to_replay():
    assert len(PATHS) >= 7


@pytest.mark.parametrize("path", PATHS, ids=[str(p.relative_to(FINDINGS)) for p in PATHS])
def test_the_reference_gives_the_expected_outcome(path):
    case = load(path).case
    assert assemble(case.reads, case.tools, case.limits) == case.expected
    # and the same however the wire is read
    wire = case.wire
    assert assemble([wire], case.tools, case.limits) == case.expected
    assert assemble([wire[i:i + 1] for i in range(len(wire))], case.tools, case.limits) == case.expected


def test_every_recorded_target_still_behaves_as_recorded():
    report = replay(load_fixtures([str(FINDINGS)]))
    unexpected = [(c.fixture.label, c.target, c.verdict) for c in report.cells if c.unexpected]
    assert report.exit_code == 0 and not unexpected, unexpected
    # The self-test mutants never change: each of their fixtures still fails, the way it was recorded.
    selftest = [c for c in report.cells if c.recorded and c.target.startswith("selftest-")]
    assert len(selftest) >= 9
    assert {c.verdict for c in selftest} == {"still fails"}, [(c.fixture.label, c.verdict) for c in selftest]
