"""``toolfuzz export``: every format replays to the expected outcome, and the pytest module tests what it says."""

from __future__ import annotations

import json
import shlex
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
            assert sorted(doc) == ["chunks", "expected", "tools"]
            assert doc["expected"] == fixture.case.expected.to_json()
            assert doc["tools"] == [t.to_json() for t in fixture.case.tools]
            chunks = doc["chunks"]
        else:
            chunks = [json.loads(line) for line in text.splitlines()]
        assert chunks and all(c["object"] == "chat.completion.chunk" for c in chunks)
        assert assemble_chunks(chunks) == calls_as_plain(fixture.case.expected), path.name


REFERENCE_BYTES = '''from toolfuzz.targets.reference import assemble as _reference

def assemble(reads):
    return [{**c.to_json(), "complete": c.status != "incomplete"} for c in _reference(reads).calls]
'''
PLUGS = {
    "plain": "from toolfuzz.targets.selftest.plain import assemble_chunks as assemble\n",
    "mutant": "from toolfuzz.targets.selftest.mutants import hand_out_after_disconnect as assemble\n",
    "bytes_reference": REFERENCE_BYTES,
    "bytes_mutant": "from toolfuzz.targets.selftest.mutants import decode_each_read as assemble\n",
}


def plug(module: Path, code: str | None, into: Path) -> None:
    """Copy an exported module, replacing what lies between the markers (as a user edits it)."""
    text = module.read_text(encoding="utf-8")
    if code is not None:
        before, rest = text.split(MARK_BEGIN + "\n")
        _, after = rest.split(MARK_END + "\n")
        text = before + MARK_BEGIN + "\n" + code + MARK_END + "\n" + after
    into.mkdir(parents=True, exist_ok=True)
    (into / module.name).write_text(text, encoding="utf-8")


def test_the_pytest_module_passes_with_a_correct_assembler_and_fails_with_a_broken_one(tmp_path, capsys):
    events, raw = tmp_path / "export-events", tmp_path / "export-bytes"
    assert export(capsys, "--format", "pytest", DISCONNECT, MULTIBYTE, "--out", events)[0] == 0
    assert export(capsys, "--format", "pytest", "--level", "bytes", DISCONNECT, MULTIBYTE, "--out", raw)[0] == 0
    modules = ["test_disconnect_mid_arguments.py", "test_read_splits_multibyte.py"]
    assert sorted(p.name for p in events.iterdir()) == sorted(p.name for p in raw.iterdir()) == modules
    runs = tmp_path / "runs"
    for name in modules:
        for plugged, code in PLUGS.items():
            plug((raw if plugged.startswith("bytes") else events) / name, code, runs / plugged)
        plug(events / name, None, runs / "unplugged")
    # One pytest run for every variant, outside this project, with no toolfuzz conftest or config.
    report = tmp_path / "report.xml"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                           f"--junitxml={report}", "--rootdir", str(runs), str(runs)],
                          cwd=runs, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # some variants fail, as they must
    results: dict[tuple[str, str, str], str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        variant, module = case.get("classname").split(".")[-2:]
        failure = case.find("failure")
        results[(variant, module, case.get("name"))] = "" if failure is None else failure.get("message")
    assert len(results) == len(modules) * (len(PLUGS) + 1) * 6

    def failing(variant: str, module: str) -> dict[str, str]:
        return {test: message for (v, m, test), message in results.items() if (v, m) == (variant, module) and message}

    for module in ("test_disconnect_mid_arguments", "test_read_splits_multibyte"):
        assert failing("plain", module) == {}, module
        assert failing("bytes_reference", module) == {}, module
        assert set(failing("unplugged", module)) == {t for (v, m, t) in results if (v, m) == ("unplugged", module)}
        assert all("plug your assembler in" in m for m in failing("unplugged", module).values())
    # the mutant that hands on unfinished calls fails exactly the completion test, and says why
    (message,) = failing("mutant", "test_disconnect_mid_arguments").values()
    assert set(failing("mutant", "test_disconnect_mid_arguments")) == {"test_completion_follows_the_stream"}
    assert "call 0 of choice 0 is handed on as complete, but the stream never finished it" in message
    assert failing("mutant", "test_read_splits_multibyte") == {}  # a finished call: nothing for it to get wrong
    # the bytes-level mutant that decodes each read alone mangles the characters the reads split
    (message,) = failing("bytes_mutant", "test_read_splits_multibyte").values()
    assert "arguments should be" in message and "naïve" in message


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
