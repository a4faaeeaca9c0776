"""``corpus check``: every recorded target sorted into new, still failing, changed, fixed or skipped."""

from __future__ import annotations

import json
import shutil

from toolfuzz.corpus.check import check
from toolfuzz.corpus.minimize import minimize
from toolfuzz.targets.base import Target
from toolfuzz.targets.selftest import PLAIN
from tests.corpus.edited import recording
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"
HAND_OUT = "selftest-hand-out-after-disconnect"


def test_a_fixture_its_target_now_passes_is_reported_fixed_and_one_with_nothing_recorded_skipped(tmp_path):
    fixed = recording(SEED / "two-calls-interleaved.json", tmp_path / "fixed.json",
                      {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on", "version": "0.9"}})
    shutil.copy(SEED / "cut-inside-string.json", tmp_path / "seed.json")
    results = {r.path.name: r for r in minimize([str(tmp_path)])}
    assert results["fixed.json"].action == "fixed"
    assert results["fixed.json"].detail == f"fixed in {HAND_OUT} (unversioned) (recorded on 0.9)"
    assert results["seed.json"].action == "skipped"
    assert fixed.read_bytes() == recording(SEED / "two-calls-interleaved.json", tmp_path / "again.json",
                                           {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on",
                                                       "version": "0.9"}}).read_bytes()


# -- check -------------------------------------------------------------------

def test_check_sorts_recorded_cells_and_passes_when_the_mutants_still_fail():
    result = check([str(FINDINGS / "selftest-key-by-id"), str(SEED)])
    assert result.exit_code == 0
    assert len(result.classes["still failing"]) == 2
    assert not result.classes["reference disagrees"] and not result.classes["new"]


def test_a_library_that_fixed_its_bug_is_reported_fixed_in_its_version_and_does_not_fail(tmp_path):
    path = recording(SEED / "two-calls-interleaved.json", tmp_path / "lib.json",
                     {"somelib": {"verdict": "diverges", "kind": "call_lost", "version": "1.0"}})
    plain = Target(name="somelib", fn=PLAIN.fn, version="2.0")
    result = check([str(path)], [plain])
    (cell,) = result.classes["fixed"]
    assert result.exit_code == 0
    assert result.to_json()["classes"]["fixed"][0]["fixed_in"] == "fixed in somelib 2.0 (recorded on 1.0)"
    assert cell.target == "somelib"


def test_a_self_test_fixture_that_passes_fails_the_check(tmp_path):
    path = recording(SEED / "two-calls-interleaved.json", tmp_path / "mutant.json",
                     {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on"}})
    result = check([str(path)])
    assert result.exit_code == 1 and len(result.classes["must fail, passes"]) == 1


def test_a_fixture_the_reference_disagrees_with_fails_the_check_and_a_new_divergence_does_not(tmp_path):
    doc = json.loads((SEED / "two-calls-interleaved.json").read_text(encoding="utf-8"))
    doc["expected"]["calls"][0]["arguments"] += " "
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert check([str(bad)]).exit_code == 1
    lost = Target(name="loses-everything", fn=lambda chunks: [])
    result = check([str(SEED / "two-calls-interleaved.json")], [lost])
    assert result.exit_code == 0 and [c.kind for c in result.classes["new"]] == ["call_lost"]
