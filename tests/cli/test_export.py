"""``toolfuzz export``: every format replays to the expected outcome, and the pytest module tests what it says."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from toolfuzz.cli import main
from toolfuzz.outputs.export import MARK_BEGIN, MARK_END
from toolfuzz.corpus.fixtures import load
from toolfuzz.targets.reference import assemble
from toolfuzz.targets.selftest.plain import assemble_chunks
from tests.adapter_checks import require
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
SEEDS = sorted(SEED.glob("*.json"))
DISCONNECT = SEED / "disconnect-mid-arguments.json"
MULTIBYTE = SEED / "read-splits-multibyte.json"


def export(capsys, *argv):
    code = main(["export", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def calls_as_plain(outcome) -> list[dict]:
    return [{"choice": c.choice, "index": c.index, "id": c.id, "name": c.name, "arguments": c.arguments,
             "complete": c.status != "incomplete"} for c in outcome.calls]


def test_sse_replays_through_toolfuzz_assemble_to_the_expected_outcome(tmp_path, capsys, monkeypatch):
    code, out, _ = export(capsys, "--format", "sse", SEED, "--out", tmp_path / "sse")
    assert code == 0 and len(out.splitlines()) == len(list((tmp_path / "sse").iterdir()))
    monkeypatch.chdir(tmp_path / "sse")
    for path in SEEDS:
        case = load(path).case
        reads = json.loads(Path(f"{path.stem}.reads.json").read_text())
        command = shlex.split(reads["replay"])
        assert command[:3] == ["toolfuzz", "assemble", f"{path.stem}.sse"]
        capsys.readouterr()
        code = main(command[1:])
        printed = capsys.readouterr().out
        expected_text = Path(reads["expected"]).read_text(encoding="utf-8")
        assert printed == expected_text, path.name  # byte for byte: `diff` agrees
        assert json.loads(printed) == case.expected.to_json()
        assert code == (1 if case.expected.error else 0)
        # and the wire re-cut at the recorded offsets is the fixture's reads
        wire = Path(reads["sse"]).read_bytes()
        bounds = [0, *reads["cuts"], len(wire)]
        recut = tuple(wire[a:b] for a, b in zip(bounds, bounds[1:]))
        assert recut == case.reads and assemble(recut, case.tools, case.limits) == case.expected


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_and_jsonl_chunks_fed_to_the_plain_assembler_give_the_expected_calls(tmp_path, capsys, fmt):
    code, _, _ = export(capsys, "--format", fmt, SEED, "--out", tmp_path)
    assert code == 0
    for path in SEEDS:
        fixture = load(path)
        text = (tmp_path / f"{path.stem}.{fmt}").read_text(encoding="utf-8")
        if fmt == "json":
            doc = json.loads(text)
            assert sorted(doc) == ["chunks", "events", "expected", "tools"]
            assert [(e["event"], e["data"]) for e in doc["events"]] == [(e.event, e.data) for e in fixture.case.events]
            assert doc["expected"] == fixture.case.expected.to_json()
            assert doc["tools"] == [t.to_json() for t in fixture.case.tools]
            chunks = doc["chunks"]
        else:
            chunks = [json.loads(line) for line in text.splitlines()]
        assert chunks and all(c["object"] == "chat.completion.chunk" for c in chunks)
        assert assemble_chunks(chunks) == calls_as_plain(fixture.case.expected), path.name


REFERENCE_BYTES = '''LEVEL = "bytes"
from toolfuzz.targets.reference import assemble as _reference

def assemble(reads):
    return [{**c.to_json(), "complete": c.status != "incomplete"} for c in _reference(reads).calls]
'''
PLUGS = {
    "plain": 'LEVEL = "events"\nfrom toolfuzz.targets.selftest.plain import assemble_chunks as assemble\n',
    "mutant": 'LEVEL = "events"\nfrom toolfuzz.targets.selftest.mutants import hand_out_after_disconnect as assemble\n',
    "bytes_reference": REFERENCE_BYTES,
    "bytes_mutant": 'LEVEL = "bytes"\nfrom toolfuzz.targets.selftest.mutants import decode_each_read as assemble\n',
}


def plug(export: Path, code: str | None, into: Path) -> None:
    """Copy an export, replacing what lies between the module's markers (as a user edits it)."""
    shutil.copytree(export, into)
    module = into / "test_toolfuzz_regressions.py"
    text = module.read_text(encoding="utf-8")
    if code is not None:
        before, rest = text.split(MARK_BEGIN + "\n")
        _, after = rest.split(MARK_END + "\n")
        text = before + MARK_BEGIN + "\n" + code + MARK_END + "\n" + after
    module.write_text(text, encoding="utf-8")


def test_the_pytest_export_is_one_module_over_its_cases_passing_a_correct_assembler_failing_a_broken_one(
        tmp_path, capsys):
    exported = tmp_path / "export"
    code, out, _ = export(capsys, "--format", "pytest", DISCONNECT, MULTIBYTE, "--out", exported)
    assert code == 0
    assert sorted(str(p.relative_to(exported)) for p in exported.rglob("*") if p.is_file()) == [
        "cases/disconnect_mid_arguments.json", "cases/read_splits_multibyte.json", "test_toolfuzz_regressions.py"]
    assert load(exported / "cases" / "disconnect_mid_arguments.json").case == load(DISCONNECT).case
    runs = tmp_path / "runs"
    for plugged, code_ in PLUGS.items():
        plug(exported, code_, runs / plugged)
    plug(exported, None, runs / "unplugged")
    # One pytest run for every variant, outside this project, with no toolfuzz conftest or config.
    report = tmp_path / "report.xml"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                           f"--junitxml={report}", "--rootdir", str(runs), str(runs)],
                          cwd=runs, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # some variants fail, as they must
    results: dict[tuple[str, str], str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        variant = case.get("classname").split(".")[-2]
        failure = case.find("failure")
        results[(variant, case.get("name"))] = "" if failure is None else failure.get("message")
    cases = ["test_case[disconnect_mid_arguments]", "test_case[read_splits_multibyte]"]
    assert sorted(results) == sorted((v, c) for v in [*PLUGS, "unplugged"] for c in cases)

    def failing(variant: str) -> dict[str, str]:
        return {test: message for (v, test), message in results.items() if v == variant and message}

    assert failing("plain") == {} and failing("bytes_reference") == {}
    assert set(failing("unplugged")) == set(cases)
    assert all("plug your assembler in" in m for m in failing("unplugged").values())
    # the mutant that hands on unfinished calls fails the cut-short stream only, and says why
    (message,) = failing("mutant").values()
    assert set(failing("mutant")) == {"test_case[disconnect_mid_arguments]"}
    assert "incomplete_handed_on: call 0 of choice 0 was never finished but is handed on" in message
    # the bytes-level mutant that decodes each read alone mangles the characters the reads split
    assert set(failing("bytes_mutant")) == {"test_case[read_splits_multibyte]"}
    assert "arguments_differ" in failing("bytes_mutant")["test_case[read_splits_multibyte]"]


def test_names_are_unique_and_a_second_export_overwrites(tmp_path, capsys):
    twin = tmp_path / "twin.json"
    twin.write_text(DISCONNECT.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    for _ in range(2):
        code, printed, _ = export(capsys, "--format", "jsonl", DISCONNECT, twin, "--out", out)
        assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["disconnect-mid-arguments-2.jsonl",
                                                      "disconnect-mid-arguments.jsonl"]
    assert printed.splitlines() == [str(out / "disconnect-mid-arguments.jsonl"),
                                    str(out / "disconnect-mid-arguments-2.jsonl")]


def test_errors_exit_2_with_one_line_and_write_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(DISCONNECT.read_text()), "tools": [{"parameters": {}}]}))
    out = tmp_path / "out"
    code, printed, err = export(capsys, "--format", "json", DISCONNECT, bad, "--out", out)
    assert (code, printed) == (2, "") and err.count("\n") == 1 and f"{bad}: tools[0].name: missing" in err
    assert not out.exists()
    afile = tmp_path / "afile"
    afile.write_text("")
    for argv in (["--format", "json", DISCONNECT, "--out", afile],
                 ["--format", "json", "--level", "bytes", DISCONNECT, "--out", out]):
        code, printed, err = export(capsys, *argv)
        assert (code, printed) == (2, "") and err.count("\n") == 1
    with pytest.raises(SystemExit) as e:
        main(["export", "--format", "yaml", str(DISCONNECT), "--out", str(out)])
    assert e.value.code == 2


def test_a_partial_finding_exports_for_a_partial_parser_plugged_in_once(tmp_path, capsys):
    finding = ROOT / "findings" / "jiter" / "jiter-partial--number_before_complete--plain.json"
    exported = tmp_path / "export"
    code, _, _ = export(capsys, "--format", "pytest", "--level", "partial", finding, "--out", exported)
    assert code == 0
    module = (exported / "test_toolfuzz_regressions.py").read_text(encoding="utf-8")
    assert 'LEVEL = "partial"' in module and "def assemble(text):" in module
    runs = tmp_path / "runs"
    plug(exported, 'LEVEL = "partial"\nfrom toolfuzz.targets.reference.partial import parse as assemble\n',
         runs / "reference")
    plug(exported, 'LEVEL = "partial"\nfrom toolfuzz.targets.selftest.partial import number_early as assemble\n',
         runs / "early")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                           "--rootdir", str(runs), str(runs)], cwd=runs, capture_output=True, text=True, timeout=300)
    # The reference keeps every rule; the parser that shows numbers early fails, naming the rule.
    assert "1 failed, 1 passed" in proc.stdout, proc.stdout + proc.stderr
    assert "number_before_complete" in proc.stdout


OPENAI_RAISE = ROOT / "findings" / "openai" / "openai-stream-state--raised--multi-choice.json"
MUTANT = ROOT / "findings" / "selftest-key-by-id" / "phantom_call--index-from-one.json"


def test_repro_writes_a_script_and_an_issue_and_says_in_one_line_what_it_leaves_out(tmp_path, capsys):
    require("openai")
    out = tmp_path / "out"
    code, printed, err = export(capsys, "--format", "repro", OPENAI_RAISE, MUTANT, "--out", out)
    stem = "openai-stream-state--raised--multi-choice"
    assert printed.splitlines() == [str(out / f"{stem}.py"), str(out / f"{stem}.md")]
    # The mutant is left out, said on stderr, and the export exits 1 for it.
    assert code == 1 and err == (f"toolfuzz export: left out: {MUTANT}: selftest-key-by-id: a self-test mutant of "
                                 "toolfuzz's own, not a library\n")
    assert (out / f"{stem}.md").read_text(encoding="utf-8").startswith("# openai ")
    # The script runs with toolfuzz unimportable, and shows the bug.
    done = subprocess.run([sys.executable, "-c", "import sys, runpy; sys.modules['toolfuzz'] = None; "
                           "runpy.run_path(sys.argv[1], run_name='__main__')", str(out / f"{stem}.py")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "REPRODUCED: raised IndexError: list assignment index out of range\n")


def test_repro_takes_a_model_s_text_and_needs_no_library_to_write_it(tmp_path, capsys):
    finding = ROOT / "findings" / "vllm" / "vllm-hermes--content_differs--content-after.json"
    code, printed, _ = export(capsys, "--format", "repro", finding, "--out", tmp_path)
    assert code == 0 and len(printed.splitlines()) == 2
    text = (tmp_path / "vllm-hermes--content_differs--content-after.py").read_text(encoding="utf-8")
    compile(text, "script", "exec")
    assert "BATCHES = " in text and "def _producer(" in text


def test_repro_with_nothing_to_write_is_an_error_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    code, printed, err = export(capsys, "--format", "repro", MUTANT, "--out", out)
    assert (code, printed) == (2, "") and err.count("\n") == 1 and "a self-test mutant" in err
    code, printed, err = export(capsys, "--format", "repro", "--level", "events", OPENAI_RAISE, "--out", out)
    assert (code, printed) == (2, "") and "--level applies to --format pytest only" in err
    assert not out.exists()
