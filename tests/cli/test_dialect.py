"""``--dialect`` on run, generate, replay and assemble: one option, the same meaning everywhere."""

from __future__ import annotations

import json

import pytest

from toolfuzz.cli import main
from toolfuzz.cli.arguments import targets_for
from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import iter_fixture_paths, load
from tests.paths import ROOT

FINDINGS = ROOT / "findings"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_targets_run_only_on_the_dialects_they_list():
    names = [t.name for t in targets_for([], "events", "anthropic")]
    assert "reference" in names and "selftest-plain" in names
    assert "selftest-key-by-id" not in names and "openai-client" not in names
    mutants = [t.name for t in targets_for(["selftest"], "events", "anthropic")]
    assert "selftest-tool-number-as-index" in mutants and "selftest-shared-placeholder" not in mutants


def test_a_target_that_does_not_support_the_dialect_is_a_usage_error_naming_both():
    with pytest.raises(UsageError, match="selftest-key-by-id does not support --dialect anthropic"):
        targets_for(["selftest-key-by-id"], "events", "anthropic")


def test_a_plain_function_runs_in_every_dialect(tmp_path):
    target = tmp_path / "mine.py"
    target.write_text("def assemble(events):\n    return []\n")
    (t,) = targets_for([f"{target}:assemble"], "events", "openai-responses")
    assert t.dialects == ("openai-chat", "openai-responses", "anthropic")


def test_assemble_reads_a_capture_in_its_dialect(capsys, tmp_path):
    case = load(FINDINGS / "seed-anthropic" / "two-calls-interleaved.json").case
    capture = tmp_path / "capture.sse"
    capture.write_bytes(case.wire)
    code, out, _ = run(capsys, "assemble", "--dialect", "anthropic", "--read-size", 7, capture)
    assert code == 0 and json.loads(out) == case.expected.to_json()
    # read as chat chunks, the same bytes hold no call at all
    code, out, _ = run(capsys, "assemble", capture)
    assert json.loads(out)["calls"] == []


def test_generate_writes_fixtures_that_record_their_dialect(capsys, tmp_path):
    code, _, _ = run(capsys, "generate", "--dialect", "openai-responses", "--count", 3, "--seed", 4, "--out", tmp_path, "-q")
    paths = iter_fixture_paths([str(tmp_path)])
    assert code == 0 and len(paths) == 3
    assert {load(p).case.dialect for p in paths} == {"openai-responses"}
    code, _, err = run(capsys, "generate", "--dialect", "anthropic", "--profile", "index-zero", "--out", tmp_path)
    assert code == 2 and "unknown profile 'index-zero' for --dialect anthropic" in err


def test_replay_runs_each_fixture_in_its_own_dialect_and_filters_by_dialect(capsys):
    code, out, _ = run(capsys, "replay", "--json", "--dialect", "anthropic", FINDINGS / "seed", FINDINGS / "seed-anthropic")
    report = json.loads(out)
    assert code == 0 and len(report["fixtures"]) == 5
    assert {load(f["path"]).case.dialect for f in report["fixtures"]} == {"anthropic"}
    code, _, err = run(capsys, "replay", "--dialect", "openai-responses", FINDINGS / "seed")
    assert code == 2 and "no fixture of dialect openai-responses" in err


def test_run_refuses_a_target_outside_the_dialect(capsys, tmp_path):
    code, _, err = run(capsys, "run", "--dialect", "openai-responses", "--target", "selftest-key-by-id",
                       "--findings", tmp_path)
    assert code == 2 and "selftest-key-by-id does not support --dialect openai-responses" in err


@pytest.mark.parametrize("dialect", ["openai-responses", "anthropic"])
def test_a_sharded_run_splits_the_dialects_own_profiles(capsys, tmp_path, dialect):
    from toolfuzz.strategies.profiles import DIALECT_PROFILES

    code, out, err = run(capsys, "run", "--dialect", dialect, "--target", "reference", "--shard", "1/2",
                         "--max-examples", 40, "--seed", 5, "--budget", 300, "--json",
                         "--findings", tmp_path / "findings", "--state", tmp_path / "state")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["examples"] >= 40 and summary["profiles"]
    assert set(summary["profiles"]) <= set(DIALECT_PROFILES[dialect]), summary["profiles"]
