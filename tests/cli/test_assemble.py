"""``toolfuzz assemble``: outcome on stdout, exit 0/1/2, one clear line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolfuzz.cli import main
from tests.streams import chunk, frag, head, sse
from tests.paths import ROOT

EXAMPLES = ROOT / "harness" / "examples"
EXAMPLE = EXAMPLES / "two-calls.sse"
TOOLS = EXAMPLES / "tools.json"
EXPECTED_EXAMPLE = [
    {"choice": 0, "index": 0, "id": "call_w1", "name": "get_weather",
     "arguments": '{"city": "Zürich", "unit": "celsius"}', "status": "complete"},
    {"choice": 0, "index": 1, "id": "call_r1", "name": "read_file",
     "arguments": '{"path": "/tmp/café ☕.txt"}', "status": "complete"},
]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_bundled_example_read_at_every_size_up_to_40_bytes(capsys):
    wire = EXAMPLE.read_bytes()
    characters = [(i, 2 if b < 0xE0 else 3 if b < 0xF0 else 4) for i, b in enumerate(wire) if b >= 0xC0]
    cutting = {size for size in range(1, 41) for i, n in characters
               if any(i < edge < i + n for edge in range(size, len(wire), size))}
    assert len(cutting) >= 10, "many read sizes below must cut inside a multibyte character"
    for size in range(1, 41):
        code, out, err = run(capsys, "assemble", EXAMPLE, "--tools", TOOLS, "--read-size", size)
        assert (code, err) == (0, "")
        assert json.loads(out) == {"calls": EXPECTED_EXAMPLE, "error": None}, size


def test_a_stream_cut_off_mid_arguments_prints_its_call_incomplete(tmp_path, capsys):
    wire = sse(chunk(head(0, "c", "read_file", '{"path": "/va')), chunk(frag(0, 'r/log"}')), chunk(finish="tool_calls"))
    cut = tmp_path / "cut.sse"
    cut.write_bytes(wire[: wire.index(b"r/log") + 2])
    code, out, _ = run(capsys, "assemble", cut)
    assert code == 0
    assert json.loads(out)["calls"] == [{"choice": 0, "index": 0, "id": "c", "name": "read_file",
                                          "arguments": '{"path": "/va', "status": "incomplete"}]


def test_a_stream_error_exits_1_with_the_outcome(tmp_path, capsys):
    path = tmp_path / "err.sse"
    path.write_bytes(sse(chunk(head(0, "c", "f", "{")), {"error": {"message": "overloaded"}}))
    code, out, _ = run(capsys, "assemble", path)
    assert code == 1 and json.loads(out)["error"] == {"code": "server_error", "message": "overloaded"}


def test_a_bound_exceeded_exits_1_and_names_the_bound(capsys):
    code, out, _ = run(capsys, "assemble", EXAMPLE, "--max-events", 3)
    assert code == 1 and json.loads(out)["error"]["code"] == "too_many_events"
    assert {c["status"] for c in json.loads(out)["calls"]} == {"incomplete"}


@pytest.mark.parametrize("argv,words", [
    (["assemble", "/nonexistent.sse"], "/nonexistent.sse: cannot read"),
    (["assemble", str(EXAMPLE), "--tools", "/nonexistent.json"], "/nonexistent.json: cannot read"),
])
def test_unreadable_inputs_exit_2_with_one_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err


def test_an_invalid_tool_schema_exits_2_naming_the_tool(tmp_path, capsys):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "bad", "parameters": {"type": "object", "required": "x"}}]))
    code, _, err = run(capsys, "assemble", EXAMPLE, "--tools", tools)
    assert code == 2 and "tool 'bad'" in err and err.count("\n") == 1


def test_bad_numbers_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as e:
        main(["assemble", str(EXAMPLE), "--max-events", "0"])
    assert e.value.code == 2


def test_the_console_script_reads_stdin():
    proc = subprocess.run([sys.executable, "-m", "toolfuzz", "assemble", "-", "--read-size", "3"],
                          input=EXAMPLE.read_bytes(), capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert [c["id"] for c in json.loads(proc.stdout)["calls"]] == ["call_w1", "call_r1"]


def _max_rss_kb(argv: list[str]) -> int:
    probe = ("import resource, subprocess, sys; "
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=300)
    code, rss = out.stdout.split()
    return int(code), int(rss)


def test_a_50_mb_capture_is_assembled_in_bounded_memory(tmp_path):
    filler = sse(chunk(delta={"content": "y" * 4000}), done=False)
    big = tmp_path / "big.sse"
    with open(big, "wb") as f:
        f.write(sse(chunk(head(0, "c", "f", "{}")), done=False))
        for _ in range(50 * 1024 * 1024 // len(filler) + 1):
            f.write(filler)
        f.write(sse(chunk(finish="tool_calls")))
    assert big.stat().st_size > 50 * 1024 * 1024
    small = tmp_path / "small.sse"
    small.write_bytes(sse(chunk(head(0, "c", "f", "{}")), chunk(finish="tool_calls")))
    cli = [sys.executable, "-m", "toolfuzz", "assemble"]
    code_small, baseline = _max_rss_kb(cli + [str(small)])
    code_big, grown = _max_rss_kb(cli + [str(big)])
    assert code_small == code_big == 0
    assert grown - baseline < 16 * 1024, (baseline, grown)  # KiB: not the 50 MB of the capture
    code_bound, bounded = _max_rss_kb(cli + [str(big), "--max-bytes", str(4 * 1024 * 1024)])
    assert code_bound == 1 and bounded - baseline < 16 * 1024
