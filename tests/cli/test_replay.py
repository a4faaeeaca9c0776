"""``toolfuzz replay``: the matrix, --json, --junit, and exit 0 / 1 / 2 as the issue states them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.paths import ROOT
from toolfuzz.cli import main
from toolfuzz.corpus.replay import MAX_LABEL, shorten

SEED = ROOT / "findings" / "seed"
DISCONNECT = SEED / "disconnect-mid-arguments.json"
HAND_OUT = "selftest-hand-out-after-disconnect"
RECORDED = {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on", "detail": "found by hand"}}


def run(capsys, *argv):
    code = main(["replay", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def cells(out: str, label: str) -> list[str]:
    """The cells of one matrix row, split on the two-space column gaps."""
    (row,) = [line for line in out.splitlines() if line.startswith(label + " ")]
    return [c.strip() for c in row[len(label):].split("  ") if c.strip()]


def edited(tmp_path: Path, **changes) -> Path:
    doc = json.loads(DISCONNECT.read_text(encoding="utf-8"))
    doc.update(changes)
    path = tmp_path / "disconnect.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_seed_fixtures_on_the_reference_and_the_plain_assembler_are_all_ok(capsys):
    code, out, err = run(capsys, SEED, "--target", "reference", "--target", "selftest-plain")
    assert (code, err) == (0, "")
    for path in SEED.glob("*.json"):
        assert cells(out, path.stem) == ["ok", "ok"]
    assert "1  reference" in out and "2  selftest-plain" in out and "legend:" in out
    assert out.splitlines()[-1].startswith("pass: 8 fixtures x 2 targets, 16 ok")


def test_a_mutant_that_diverges_where_nothing_was_recorded_exits_1(capsys):
    code, out, _ = run(capsys, DISCONNECT, "--target", HAND_OUT)
    assert code == 1
    assert cells(out, "disconnect-mid-arguments") == ["ok", "DIVERGES incomplete_handed_on"]
    assert "never finished but is handed on" in out
    assert out.splitlines()[-1].startswith("FAIL:")


def test_a_recorded_divergence_that_still_fails_exits_0(tmp_path, capsys):
    code, out, _ = run(capsys, edited(tmp_path, observed=RECORDED))
    assert code == 0
    assert cells(out, "disconnect-mid-arguments") == ["ok", "still fails: incomplete_handed_on"]


def test_a_wire_the_mutant_now_gets_right_is_reported_fixed_and_exits_0(tmp_path, capsys):
    doc = json.loads(DISCONNECT.read_text(encoding="utf-8"))
    lines = doc["wire"]["lines"]
    prefix = lines[2][:lines[2].index('"choices"')]
    # The stream no longer breaks off: the last fragment arrives whole and the choice finishes.
    lines[4:] = [prefix + '"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
                 '"g/syslog\\"}"}}]},"finish_reason":null}]}\n', "\n",
                 prefix + '"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n', "\n",
                 "data: [DONE]\n", "\n"]
    doc["expected"]["calls"][0].update(arguments='{"path": "/var/log/syslog"}', status="complete")
    # The new wire's events, as a person editing the fixture by hand lists them.
    events = [{"event": "message", "data": line[len("data: "):-1], "id": ""} for line in lines if line != "\n"]
    path = edited(tmp_path, wire=doc["wire"], expected=doc["expected"], observed=RECORDED, events=events)
    code, out, _ = run(capsys, path)
    assert code == 0
    assert cells(out, "disconnect-mid-arguments") == ["ok", "fixed"]
    assert f"fixed in {HAND_OUT} (unversioned) (recorded: incomplete_handed_on)" in out
    code, out, _ = run(capsys, path, "--json")
    (cell,) = [c for c in json.loads(out)["cells"] if c["target"] == HAND_OUT]
    assert cell["recorded"] == {"kind": "incomplete_handed_on", "reproduces": False, "fixed": True}


def test_a_correct_target_recorded_as_diverging_is_fixed_too(tmp_path, capsys):
    path = edited(tmp_path, observed={"selftest-plain": {"verdict": "diverges", "kind": "call_lost"}})
    code, out, _ = run(capsys, path)
    assert code == 0 and cells(out, "disconnect-mid-arguments") == ["ok", "fixed"]


def test_a_recorded_target_that_is_not_built_in_is_skipped(tmp_path, capsys):
    path = edited(tmp_path, observed={"mylib.stream:assemble": {"verdict": "diverges", "kind": "call_lost"}})
    code, out, _ = run(capsys, path)
    assert code == 0 and cells(out, "disconnect-mid-arguments") == ["ok", "skipped"]


TARGETS_PY = '''
import socket

def raises(chunks):
    raise RuntimeError("no tool calls here")

def loops(chunks):
    while True:
        pass

def phones_home(chunks):
    socket.create_connection(("127.0.0.1", 9))
'''


def test_raising_looping_and_blocked_targets(tmp_path, capsys):
    (tmp_path / "mine.py").write_text(TARGETS_PY)
    specs = [f"{tmp_path / 'mine.py'}:{fn}" for fn in ("raises", "loops", "phones_home")]
    argv = [SEED / "two-calls-interleaved.json", "--timeout", "0.5"] + [a for s in specs for a in ("--target", s)]
    code, out, _ = run(capsys, *argv)
    assert code == 1
    assert cells(out, "two-calls-interleaved") == ["ok", "RAISES", "TIMEOUT", "BLOCKED"]
    assert "RuntimeError: no tool calls here" in out


def test_raising_on_a_stream_with_nothing_executable_is_a_refusal_not_a_divergence(tmp_path, capsys):
    (tmp_path / "mine.py").write_text(TARGETS_PY)
    code, out, _ = run(capsys, DISCONNECT, "--target", f"{tmp_path / 'mine.py'}:raises")
    assert code == 0
    assert cells(out, "disconnect-mid-arguments") == ["ok", "ok"]


def test_json_is_a_machine_readable_report(tmp_path, capsys):
    code, out, _ = run(capsys, edited(tmp_path, observed=RECORDED), SEED / "two-calls-interleaved.json",
                       "--target", HAND_OUT, "--target", "selftest-shared-buffer", "--json")
    assert code == 1
    doc = json.loads(out)
    assert [f["name"] for f in doc["fixtures"]] == ["disconnect-mid-arguments", "two-calls-interleaved"]
    assert [t["name"] for t in doc["targets"]] == ["reference", HAND_OUT, "selftest-shared-buffer"]
    verdicts = {(Path(c["fixture"]).stem, c["target"]): (c["verdict"], c["kind"]) for c in doc["cells"]}
    assert verdicts[("disconnect", HAND_OUT)] == ("still fails", "incomplete_handed_on")
    assert verdicts[("two-calls-interleaved", "selftest-shared-buffer")] == ("unexpected", "arguments_misattributed")
    assert verdicts[("two-calls-interleaved", HAND_OUT)] == ("ok", None)
    assert doc["summary"]["exit"] == 1 and doc["summary"]["unexpected"] == 1


def test_junit_is_valid_xml_with_one_testcase_per_cell(tmp_path, capsys):
    junit = tmp_path / "reports" / "replay.xml"
    code, out, _ = run(capsys, SEED, "--target", "selftest-plain", "--target", HAND_OUT, "--junit", junit)
    assert code == 1 and "legend:" in out  # the matrix is still printed
    root = ET.parse(junit).getroot()
    cases = root.findall("testsuite/testcase")
    assert len(cases) == int(root.get("tests")) == 8 * 3
    failures = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
    assert failures == [("closing-brace-is-not-completion", HAND_OUT), ("disconnect-mid-arguments", HAND_OUT)]
    assert root.get("failures") == "2" and root.get("skipped") == "0"
    assert [p.name for p in junit.parent.iterdir()] == ["replay.xml"]  # no temporary file left behind


@pytest.mark.parametrize("field,value,words", [
    ("wire", {"encoding": "utf-8", "lines": ["data: x\n"], "cuts": [99]}, "wire.cuts[0]: offset 99"),
    ("expected", {"calls": [{"status": "done"}]}, "expected.calls[0].status"),
    ("observed", {"x": "diverges"}, "observed.x: must be an object"),
])
def test_a_bad_fixture_is_a_row_of_its_own_naming_the_field_and_the_others_run(tmp_path, capsys, field, value,
                                                                                words):
    path = edited(tmp_path, **{field: value})
    code, out, err = run(capsys, SEED, path)
    assert code == 2 and err == ""
    label = shorten(str(path), MAX_LABEL)
    assert cells(out, label) == ["UNREADABLE"]  # under the reference, which vouches for every fixture
    (detail,) = [line for line in out.splitlines() if line.startswith(f"  {label}: unreadable: ")]
    assert words in detail
    # Every seed fixture still ran on the reference, and agrees.
    assert f"{len(list(SEED.glob('*.json')))} ok, 0 unexpected, 1 fixture unreadable" in out


def test_usage_errors_exit_2(tmp_path, capsys):
    for argv in ([tmp_path / "missing.json"], [DISCONNECT, "--target", "no-such-target"], [tmp_path]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "") and err.count("\n") == 1, argv
    with pytest.raises(SystemExit) as e:
        main(["replay", str(DISCONNECT), "--timeout", "0"])
    assert e.value.code == 2


def test_findings_writes_each_unexpected_root_cause_once_keeping_where_the_case_came_from(tmp_path, capsys):
    # A real OpenRouter stream that repeats the id and the name on every chunk; a mutant that concatenates them.
    capture = ROOT / "findings" / "captures" / "llm" / "test_tools_streaming_variant_a.yaml"
    assert main(["corpus", "import", str(capture), "--out", str(tmp_path / "imported")]) == 0
    capsys.readouterr()
    argv = ["replay", "--target", "selftest-concat-names-and-ids", str(tmp_path / "imported"),
            "--findings", str(tmp_path / "found")]
    assert main(argv) == 1
    written = sorted((tmp_path / "found").rglob("*.json"))
    assert [p.parent.name for p in written] == ["selftest-concat-names-and-ids"]
    [path] = written
    assert path.name.startswith("id_differs--") and "captured-openrouter" in path.name
    doc = json.loads(path.read_text())
    assert doc["found"]["by"] == "toolfuzz replay" and doc["found"]["origin"]["repository"] == "simonw/llm"
    assert doc["observed"]["selftest-concat-names-and-ids"]["kind"] == "id_differs"  # ids first, then names
    assert f"written  {path}" in capsys.readouterr().err
    # Again: the same root cause, as small, is kept, not written twice.
    assert main(argv) == 1
    assert f"kept     {path}" in capsys.readouterr().err and len(list((tmp_path / "found").rglob("*.json"))) == 1


def test_on_a_terminal_the_matrix_is_compact_and_fits_while_wide_and_json_are_what_they_always_were(capsys,
                                                                                                    monkeypatch):
    argv = (SEED, "--target", "selftest-plain", "--target", HAND_OUT)
    _, whole, _ = run(capsys, *argv)
    _, as_json, _ = run(capsys, *argv, "--json")
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = run(capsys, *argv)
    assert code == 1 and max(len(line) for line in out.splitlines()) <= 100
    rows = [line.split()[0] for line in out.splitlines() if line.startswith(("fixture ", "closing-", "disconnect-",
                                                                             "cut-", "two-", "first-"))]
    assert rows == ["fixture", "closing-brace-is-not-completion", "disconnect-mid-arguments"]
    assert "left out: 6 of 8 fixtures and 2 of 3 targets whose every cell" in out
    # --wide is the whole matrix, in blocks as wide as the terminal (as it always was).
    code, wide, _ = run(capsys, *argv, "--wide")
    assert code == 1 and wide == whole and len(wide.splitlines()) > len(out.splitlines())
    assert run(capsys, *argv, "--json")[1] == as_json
