"""``toolfuzz show``: a fixture as a timeline a person can read."""

import os
import re
import subprocess
import sys

import pytest

from toolfuzz.cli import main
from toolfuzz.cli.show import render
from toolfuzz.corpus.fixtures import iter_fixture_paths, load
from tests.paths import ROOT
from toolfuzz.vocabulary import text_format

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"
FIXTURES = iter_fixture_paths([str(FINDINGS)])  # a captures folder's recordings are no fixtures


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


def test_the_glob_finds_the_whole_corpus():
    # Too few would mean the glob missed the corpus, not that every fixture agrees.
    assert len(FIXTURES) > 100


#: A model's text (the producer level) has no assembler to agree: what its parsers made of it is shown instead.
WIRES = [p for p in FIXTURES if text_format(load(p).case.dialect) is None]


@pytest.mark.parametrize("path", WIRES, ids=lambda p: str(p.relative_to(FINDINGS)))
def test_the_reference_agrees_with_every_finding(path):
    assert "reference: agrees" in render(load(path)).splitlines()


def test_show_says_when_an_event_dialect_stops_a_call(capsys):
    assert main(["show", str(FINDINGS / "seed-anthropic" / "two-calls-interleaved.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("two-calls-interleaved  (anthropic")
    assert lines.index("    call 1 stopped") < lines.index("    call 2 stopped") < lines.index("    choice 0 finished: tool_use")
    assert lines[-1] == "reference: agrees"


def test_show_prints_a_partial_parsers_answers_where_they_change(capsys):
    from tests.paths import ROOT
    path = ROOT / "findings" / "jiter" / "jiter-partial--number_before_complete--plain.json"
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "what it showed, where that changed:" in out
    # The prefix the rule broke at, and what jiter showed for it: 1 for the 10 still arriving.
    assert "\"total_thoughts\":1' -> {" in out and '"total_thoughts": 1}' in out


def test_a_producer_finding_shows_its_batches_what_the_model_wrote_and_what_the_parser_made_of_it(capsys):
    path = ROOT / "findings" / "sglang" / "sglang-hermes--markup_leaked--batched+multi-call.json"
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sglang-hermes: markup_leaked  (text:hermes; batched, multi-call)")
    assert "text: 158 characters in 5 batches" in out and "batch 2  ', \"arguments\": {\"location\":\"\"}}\\n</tool_call>\\n\\n'" in out
    assert "  call 1  get_weather  '{\"location\":\"\"}'" in out
    assert "  streamed: 0 get_weather" in out and "    content: '\\n</tool_call>\\n\\n'" in out


#: Fixtures that hold a lone UTF-16 half somewhere (as a \\udXXX escape in their JSON): what a parser showed,
#: what a library handed on, a wire cut between the halves.
LONE_HALVES = [p for p in FIXTURES if re.search(r"\\ud[89a-f][0-9a-f]{2}", p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("path", LONE_HALVES, ids=lambda p: p.name[:60])
def test_a_fixture_holding_lone_surrogates_is_shown_on_a_plain_utf_8_terminal(path):
    # A real process with the stdout a terminal gives it (strict UTF-8), no PYTHONIOENCODING to soften it.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    env["LC_ALL"] = "C.UTF-8"
    done = subprocess.run([sys.executable, "-m", "toolfuzz", "show", str(path)], capture_output=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-600:]
    out = done.stdout.decode("utf-8")  # strict: every byte is UTF-8
    assert out.splitlines()[0].startswith(load(path).name[:40])


def test_the_lone_surrogate_fixtures_include_what_a_partial_parser_showed():
    names = [p.name for p in LONE_HALVES]
    assert any("string_not_prefix" in n for n in names) and any("utf16-halves" in n for n in names)
