"""``toolfuzz show``: a fixture as a timeline a person can read."""

from pathlib import Path

from harness.cli import main

SEED = Path(__file__).resolve().parent.parent / "findings" / "seed"


def test_show_lays_out_reads_fragments_and_the_expected_calls(capsys):
    assert main(["show", str(SEED / "read-splits-multibyte.json")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("read-splits-multibyte  (openai-chat")
    reads = [l for l in lines if l.startswith("read ")]
    assert len(reads) == 4 and reads[1].startswith("read 2  bytes 452..464")
    assert "    choice 0 call 0 opened  id=call_m  name=say" in lines
    assert "    choice 0 call 0 += ' ünïcödé\"}'" in lines
    assert "  choice 0 index 0  id=call_m  name=say  complete" in lines
    assert lines[-1] == "reference: agrees"


def test_show_says_so_when_the_reference_disagrees(tmp_path, capsys):
    text = (SEED / "two-calls-interleaved.json").read_text().replace('"call_r1"', '"call_XX"', 1)
    edited = tmp_path / "edited.json"
    edited.write_text(text)
    assert main(["show", str(edited)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "reference: DIFFERS from expected"


def test_show_on_a_bad_fixture_is_one_line_naming_file_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "toolfuzz-fixture/1", "name": 3}')
    assert main(["show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == f"toolfuzz show: {bad}: name: must be a string, not an integer\n"
