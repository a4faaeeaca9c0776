"""toolfuzz.testing and its pytest plugin: a broken assembler fails naming its fixtures, a correct one passes."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

from toolfuzz.cli import main
from toolfuzz.corpus.findings import target_folder
from toolfuzz.corpus.fixtures import load
from toolfuzz.errors import UsageError
from toolfuzz.targets.selftest import mutants
from toolfuzz.targets.selftest.plain import assemble_chunks
from toolfuzz.state import IGNORE
from toolfuzz.testing import DEFAULT_FINDINGS, Diverges, check_assembler, check_fixture, seed_for
from tests.paths import ROOT

pytest_plugins = ["pytester"]


def test_a_correct_assembler_passes_quietly(tmp_path):
    assert check_assembler(assemble_chunks, max_examples=150, findings=tmp_path) is None
    assert not any(tmp_path.iterdir())


def test_a_broken_assembler_fails_naming_each_root_cause_and_its_fixture(tmp_path):
    with pytest.raises(AssertionError) as raised:
        check_assembler(mutants.shared_buffer, max_examples=400, findings=tmp_path, seed=3)
    message = str(raised.value)
    name = "toolfuzz.targets.selftest.mutants:SharedBuffer"  # the module it is defined in, and its qualified name
    assert message.startswith(f"toolfuzz: {name} diverges in ")
    # Choices mixed is a bug (OpenAI documents n); calls interleaving, a shape no server is seen sending,
    # is robustness: written, and not what the check fails on by default.
    assert f"bug: {name}/choices_mixed/multi-choice: " in message
    assert "interleaved" not in message and any(tmp_path.rglob("*--interleaved+multi-call.json"))
    paths = re.findall(r"-> (\S+)", message)
    assert paths and all(Path(p).parent == tmp_path / target_folder(name) for p in paths)
    for p in paths:
        assert load(Path(p)).case.expected.calls  # a fixture that loads, with the calls it was built from
    # The same seed finds the same, into the same files.
    with pytest.raises(AssertionError) as again:
        check_assembler(mutants.shared_buffer, max_examples=400, findings=tmp_path, seed=3)
    assert str(again.value) == message


def test_only_root_causes_of_the_chosen_severity_fail_the_check_and_every_one_is_written(tmp_path):
    from toolfuzz.targets.base import Scope, Target

    # One buffer for all calls, in a library that never asks for a second choice: what is left is the calls'
    # fragments interleaving, a shape no server is seen sending, which is robustness.
    one_choice = Target("one-buffer", mutants.shared_buffer, scope=Scope(choices=1))
    check_assembler(one_choice, max_examples=400, findings=tmp_path, seed=3, profiles=["openai"])
    assert [p.name for p in tmp_path.rglob("*.json")] == ["arguments_misattributed--interleaved+multi-call.json"]
    with pytest.raises(AssertionError, match="1 root cause of severity robustness or graver"):
        check_assembler(one_choice, max_examples=400, findings=tmp_path, seed=3, profiles=["openai"],
                        fail_on="robustness")


def test_a_check_restricted_to_a_server_feeds_only_what_that_server_sends(tmp_path):
    from toolfuzz.strategies.features import sent_by

    seen = []

    def record(chunks):
        seen.append(chunks)
        return assemble_chunks(chunks)

    check_assembler(record, max_examples=100, findings=tmp_path, seed=1, servers=["openai"])
    entries = [e for chunks in seen for chunk in chunks for c in chunk.get("choices") or ()
               for e in (c.get("delta") or {}).get("tool_calls") or ()]
    assert entries and all(isinstance(e.get("index"), int) for e in entries)  # OpenAI always sends the index
    assert "index-missing" not in sent_by(["openai"])


def test_the_seed_comes_from_the_test_id():
    assert seed_for("tests/test_x.py::test_a") == seed_for("tests/test_x.py::test_a")
    assert seed_for("tests/test_x.py::test_a") != seed_for("tests/test_x.py::test_b")


def test_bad_arguments_are_one_clear_error():
    with pytest.raises(UsageError, match="level must be one of"):
        check_assembler(assemble_chunks, level="wire")
    with pytest.raises(UsageError, match="unknown profile 'nope'"):
        check_assembler(assemble_chunks, profiles=["nope"])
    with pytest.raises(UsageError, match="not a int"):
        check_assembler(3)
    with pytest.raises(UsageError, match="unknown servers"):
        check_assembler(assemble_chunks, servers=["nosuchserver"])
    with pytest.raises(UsageError, match="a severity is one of"):
        check_assembler(assemble_chunks, fail_on="critical")


USER_TESTS = '''
from toolfuzz.testing import check_assembler


def assemble(chunks):
    """Every fragment goes to the call opened last: one buffer for all calls."""
    calls = []
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            for entry in (choice.get("delta") or {}).get("tool_calls") or ():
                fn = entry.get("function") or {}
                if fn.get("name"):
                    calls.append({"choice": choice.get("index") or 0, "index": entry.get("index"),
                                  "id": entry.get("id"), "name": fn["name"], "arguments": "", "complete": True})
                if calls:
                    calls[-1]["arguments"] += fn.get("arguments") or ""
    return calls


def test_mine():
    check_assembler(assemble, profiles=["openai"], max_examples=300)


def test_theirs(toolfuzz):
    from toolfuzz.targets.selftest.plain import assemble_chunks
    toolfuzz(assemble_chunks, profiles=["openai"], max_examples=100)
'''


def test_in_a_users_suite_the_broken_one_fails_naming_its_fixture_and_the_correct_one_passes(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "--toolfuzz-findings", "found")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    fixture = re.search(rf"-> (found/{target_folder('test_user:assemble')}/\S+\.json)", out)
    assert fixture and "toolfuzz: test_user:assemble diverges in" in out
    assert load(pytester.path / fixture.group(1)).case.expected.calls
    # The seed is the test's own: a second session finds the same fixture.
    again = pytester.runpytest("-p", "no:cacheprovider", "--toolfuzz-findings", "found")
    assert fixture.group(1) in again.stdout.str()


def test_two_modules_same_named_functions_file_apart_merge_keeps_both_and_replay_by_file_agrees(
        tmp_path, monkeypatch, capsys):
    # The same mistake in two modules' `assemble`: the same root cause, of two targets.
    broken = USER_TESTS.split("def test_mine")[0]
    for module in ("tfz_alpha", "tfz_beta"):
        (tmp_path / f"{module}.py").write_text(broken)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("tfz_alpha", "tfz_beta"):
        monkeypatch.delitem(sys.modules, module, raising=False)
        with pytest.raises(AssertionError, match=f"toolfuzz: {module}:assemble diverges in "):
            check_assembler(importlib.import_module(module).assemble, profiles=["openai"], max_examples=200,
                            findings="found", seed=1)
    assert sorted(p.name for p in (tmp_path / "found").iterdir()) == sorted(
        target_folder(f"{m}:assemble") for m in ("tfz_alpha", "tfz_beta"))
    assert main(["corpus", "merge", "found", "--into", "corpus"]) == 0
    merged = {t for p in (tmp_path / "corpus").rglob("*.json") for t in load(p).observed}
    assert merged == {"tfz_alpha:assemble", "tfz_beta:assemble"}, capsys.readouterr().out
    capsys.readouterr()
    # Given as a file, each function has the name it was filed under: its findings are recorded, not unexpected.
    for module in ("tfz_alpha", "tfz_beta"):
        mine = tmp_path / "corpus" / target_folder(f"{module}:assemble")
        code = main(["replay", str(mine), "--target", f"{module}.py:assemble"])
        out = capsys.readouterr().out
        n = len(list(mine.glob("*.json")))
        assert code == 0 and out.splitlines()[-1] == f"pass: {n} fixtures x 2 targets, {n} ok, {n} still fails, " \
                                                     "0 unexpected", out


def test_an_exported_check_judges_every_fixture_in_findings_as_the_harness_does():
    from toolfuzz.corpus.fixtures import iter_fixture_paths
    from toolfuzz.corpus.replay import ISOLATED_KINDS, REFERENCE_NAME, load_fixtures, replay
    from toolfuzz.targets.registry import builtin_targets
    from tests.paths import ROOT

    paths = iter_fixture_paths([str(ROOT / "findings")])
    report = replay(load_fixtures([str(p) for p in paths]))
    targets = builtin_targets()
    compared = 0
    for cell in report.cells:
        if cell.target == REFERENCE_NAME or cell.state == "skipped" or cell.recorded_kind in ISOLATED_KINDS:
            continue
        try:
            check_fixture(targets[cell.target], cell.fixture.path, level=targets[cell.target].level)
        except Diverges as e:
            assert cell.state != "ok" and list(e.divergences) == list(cell.divergences), cell.fixture.path
        else:
            assert cell.state == "ok", (cell.fixture.path, cell.target, cell.state)
        compared += 1
    # The self-test fixtures alone are judged on their mutants wherever the tests run; under CI every library.
    assert compared >= len([p for p in paths if p.parent.name.startswith("selftest-")])


def test_check_fixture_judges_a_partial_parser_on_every_prefix_of_a_finding():
    from toolfuzz.targets.reference.partial import parse
    from toolfuzz.targets.selftest.partial import number_early
    finding = ROOT / "findings" / "jiter" / "jiter-partial--number_before_complete--plain.json"
    check_fixture(parse, finding, level="partial")
    with pytest.raises(Diverges) as raised:
        check_fixture(number_early, finding, level="partial")
    assert [d.kind for d in raised.value.divergences] == ["number_before_complete"]


def test_findings_kept_by_default_go_in_a_state_folder_that_ignores_itself(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="diverges"):
        check_assembler(mutants.shared_buffer, max_examples=400, seed=3)
    assert list((tmp_path / DEFAULT_FINDINGS).rglob("*.json"))
    assert (tmp_path / ".toolfuzz" / ".gitignore").read_text() == IGNORE


def test_a_misspelt_option_is_a_type_error_naming_it_before_anything_runs():
    from toolfuzz.testing import check_assembler
    from toolfuzz.targets.selftest.plain import assemble_chunks

    with pytest.raises(TypeError, match="profile"):
        check_assembler(assemble_chunks, profile=["openai"])
