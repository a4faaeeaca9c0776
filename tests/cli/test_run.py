"""``toolfuzz run``: exit codes, fixtures on disk, reports, and no false positives on a correct assembler."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from xml.etree import ElementTree as ET

import pytest

from toolfuzz.cli import main
from toolfuzz.corpus.fixtures import load
from tests.paths import DATA, ROOT

DATA = DATA
OTHER = f"{DATA / 'other_assembler.py'}:assemble"


def run(capsys, *argv):
    code = main(["run", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_correct_assembler_written_elsewhere_gets_no_divergence_in_2000_examples(tmp_path, capsys):
    code, out, err = run(capsys, "--target", OTHER, "--profile", "openai", "--max-examples", 2000,
                         "--budget", 600, "--seed", 7, "--findings", tmp_path)
    assert code == 0, out + err
    assert "no divergence in 2000 examples" in out
    assert not any(tmp_path.iterdir())


def test_by_default_fixtures_go_under_the_state_folder_never_into_a_findings_folder_here(tmp_path, capsys,
                                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "findings").mkdir()  # a curated corpus, as in this repository: the run leaves it alone
    code, _, err = run(capsys, "--target", "selftest-hand-out-after-disconnect", "--max-examples", 200,
                       "--budget", 120, "--seed", 3, "--database", "none")
    assert code == 1
    assert err.splitlines()[0].endswith("; findings go to .toolfuzz/findings/")
    assert list((tmp_path / ".toolfuzz" / "findings" / "selftest-hand-out-after-disconnect").glob("*.json"))
    assert not any((tmp_path / "findings").iterdir())


def test_a_run_in_a_git_repository_leaves_git_status_as_it_was(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code, _, err = run(capsys, "--target", "selftest-hand-out-after-disconnect", "--max-examples", 100,
                       "--seed", 3)
    # Its findings were written under .toolfuzz/, which ignores itself.
    assert code == 1 and list((tmp_path / ".toolfuzz" / "findings").rglob("*.json")), err
    shown = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path,
                           capture_output=True, text=True, check=True)
    assert shown.stdout == ""


def test_a_broken_target_exits_1_and_leaves_a_fixture_with_a_show_command(tmp_path, capsys):
    code, out, err = run(capsys, "--target", "selftest-hand-out-after-disconnect", "--max-examples", 300,
                         "--budget", 120, "--seed", 3, "--findings", tmp_path, "--junit", tmp_path / "run.xml")
    assert code == 1
    files = sorted(tmp_path.glob("selftest-hand-out-after-disconnect/*.json"))
    assert files and all(load(f).observed["selftest-hand-out-after-disconnect"]["kind"] == "incomplete_handed_on"
                         for f in files)
    assert f"toolfuzz show {files[0]}" in err or any(f"toolfuzz show {f}" in err for f in files)
    assert "selftest-hand-out-after-disconnect" in out and "incomplete_handed_on" in out
    report = ET.parse(tmp_path / "run.xml").getroot()
    assert report.get("failures") == "1" and report.find("testsuite/testcase/failure") is not None


def test_the_exit_status_and_junit_fail_on_the_chosen_severity_and_every_root_cause_is_graded(tmp_path, capsys):
    # A partial parser that shows a key before its closing quote breaks a rule of the project's own:
    # robustness, written and reported, but no bug to fail a night on.
    argv = ("--target", "selftest-partial-key-early", "--max-examples", 60, "--budget", 120, "--seed", 1,
            "--database", "none", "--json")
    code, out, err = run(capsys, *argv, "--findings", tmp_path / "a", "--junit", tmp_path / "a.xml")
    assert code == 0, err
    (divergence,) = json.loads(out)["targets"][0]["divergences"]
    assert divergence["severity"] == "robustness" and divergence["grade"]["rule"] == "choice"
    assert json.loads(out)["severities"] == {"bug": 0, "robustness": 1, "note": 0}
    assert "robustness: " in err and "the rule is the project's own choice" in err
    assert ET.parse(tmp_path / "a.xml").getroot().get("failures") == "0"
    code, _, _ = run(capsys, *argv, "--findings", tmp_path / "b", "--junit", tmp_path / "b.xml",
                     "--fail-on", "robustness")
    assert code == 1
    assert ET.parse(tmp_path / "b.xml").getroot().get("failures") == "1"


def test_the_same_seed_writes_the_same_fixtures_byte_for_byte(tmp_path, capsys):
    outputs = []
    for attempt in ("a", "b"):
        code, out, _ = run(capsys, "--target", "selftest-concat-names-and-ids", "--max-examples", 300,
                           "--budget", 120, "--seed", 11, "--findings", tmp_path / attempt, "--json")
        assert code == 1
        outputs.append({p.relative_to(tmp_path / attempt): p.read_bytes()
                        for p in sorted((tmp_path / attempt).rglob("*.json"))})
        summary = json.loads(out)
        assert summary["seed"] == 11 and summary["targets"][0]["divergences"]
    assert outputs[0] == outputs[1] and outputs[0]


@pytest.mark.parametrize("mode", [["--in-process"], ["--workers", "1"], ["--workers", "2"]])
def test_what_a_target_prints_stays_out_of_the_json_and_is_shown_with_its_finding(tmp_path, capsys, mode):
    target = f"{DATA / 'printing.py'}:assemble"
    # A process of its own, as a user runs it: its descriptors 1 and 2 are the pipes read here.
    done = subprocess.run([sys.executable, "-m", "toolfuzz", "run", "--target", target, *mode,
                           "--max-examples", "30", "--budget", "120", "--seed", "3", "--database", "none",
                           "--findings", str(tmp_path / "found"), "--state", str(tmp_path / "state"), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    (row,) = json.loads(done.stdout)["targets"]
    assert "written to descriptor 2" not in done.stderr and "printed to stderr" not in done.stderr
    # Filed under its module-qualified name (the file, named from the folder the run started in).
    assert row["name"] == "tests.data.printing:assemble"
    [divergence] = row["divergences"]
    seen = load(divergence["fixture"]).observed[row["name"]]
    assert seen["output"] == {"stdout": "printed by the target\nwritten to descriptor 1\n",
                              "stderr": "printed to stderr\nwritten to descriptor 2\n"}
    assert main(["show", divergence["fixture"]]) == 0
    shown = capsys.readouterr().out
    assert "  its stdout:\n    | printed by the target\n    | written to descriptor 1\n" in shown
    assert "  its stderr:\n    | printed to stderr\n    | written to descriptor 2\n" in shown


def test_a_parser_at_level_producer_reads_the_format_its_dialect_names(tmp_path, capsys):
    right = f"{DATA / 'hermes_parser.py'}:parse"
    code, out, err = run(capsys, "--level", "producer", "--dialect", "text:hermes", "--target", right,
                         "--max-examples", 300, "--budget", 600, "--seed", 3, "--findings", tmp_path)
    assert code == 0 and "no divergence in 300 examples" in out, out + err
    wrong = f"{DATA / 'hermes_parser.py'}:drops_after"
    # Text after the calls is a shape no template renders: robustness, which this run is asked to fail on.
    code, out, err = run(capsys, "--level", "producer", "--dialect", "text:hermes", "--target", wrong,
                         "--max-examples", 300, "--budget", 600, "--seed", 3, "--findings", tmp_path, "--json",
                         "--fail-on", "robustness")
    assert code == 1
    (target,) = json.loads(out)["targets"]
    # Named after its file, relative to the folder the run started in (the tests run from the checkout).
    assert [d["signature"] for d in target["divergences"]] == ["tests.data.hermes_parser:drops_after/content_differs/"
                                                                "content-after"]
    assert load(target["divergences"][0]["fixture"]).case.dialect == "text:hermes"


def test_a_producer_run_with_no_parser_here_says_how_to_get_one(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path / "envs"))
    code, out, err = run(capsys, "--level", "producer", "--findings", tmp_path)
    assert code == 2 and err.strip() == ("toolfuzz run: no serving engine's parser here: make one's environment "
                                         "first (toolfuzz env add sglang; toolfuzz env add vllm), or name --target")
    code, out, err = run(capsys, "--dialect", "text:hermes", "--findings", tmp_path)
    assert code == 2 and "--dialect text:hermes is a model's text: it goes with --level producer" in err


@pytest.mark.parametrize("argv,words", [
    (["--target", "nope"], "not a built-in target"),
    (["--target", "no_such_module_xyz:f"], "cannot import"),
    (["--target", "toolfuzz.targets.selftest.plain:PlainAssembler.entry"], "must take one argument"),
    (["--tools", "/nonexistent/tools.json"], "cannot read"),
    (["--profile", "no-such-profile"], "no-such-profile"),
    (["--server", "no-such-server"], "unknown servers ['no-such-server']"),
])
def test_usage_and_input_errors_exit_2_with_one_line(tmp_path, capsys, argv, words):
    code, out, err = run(capsys, *argv, "--findings", tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("toolfuzz run: ") and err.count("\n") == 1 and words in err


# -- exit statuses that say what happened, whatever became of the output ----------------------------------------

def _started(argv: list[str], tmp_path, stdout) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "toolfuzz", "run", *argv, "--database", "none",
                             "--findings", str(tmp_path / "findings"), "--state", str(tmp_path / "state")],
                            stdout=stdout, stderr=subprocess.PIPE, cwd=tmp_path, env=env, text=True)


def _interrupted_when(process: subprocess.Popen, text: str) -> tuple[int, str]:
    """SIGINT to ``process`` once a line of its stderr holds ``text``; its status and stderr."""
    lines = []
    for line in process.stderr:
        lines.append(line)
        if text in line:
            process.send_signal(signal.SIGINT)
            break
    try:
        lines.append(process.stderr.read())
        return process.wait(timeout=HANG), "".join(lines)
    finally:
        process.kill()


#: Only a hang runs into this: every run below ends within seconds of its signal.
HANG = 300


def test_ctrl_c_under_a_tee_that_died_with_it_exits_1_when_something_was_found_with_the_summary_on_stderr(tmp_path):
    read, write = os.pipe()
    os.close(read)  # `| tee log`: the same Ctrl-C ended the reader
    try:
        process = _started(["--target", "selftest-key-by-id", "--budget", "600", "--seed", "1"], tmp_path, write)
    finally:
        os.close(write)
    code, err = _interrupted_when(process, "diverges: ")
    assert code == 1, err
    assert "(interrupted)" in err and "root cause" in err.split("done: ", 1)[1]  # the summary, after the run
    assert list((tmp_path / "findings" / "selftest-key-by-id").glob("*.json"))


def test_ctrl_c_before_anything_was_found_exits_130_not_0(tmp_path):
    process = _started(["--target", OTHER, "--budget", "600", "--seed", "1"], tmp_path, subprocess.PIPE)
    code, err = _interrupted_when(process, "toolfuzz run: 1 target")
    out = process.stdout.read()
    assert code == 130, err
    assert "no divergence in" in out  # the summary of what was searched, as at the end of any run


def test_a_findings_folder_that_cannot_be_written_is_exit_2_with_one_line_before_anything_runs(tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    for option, folder in (("--findings", tmp_path / "a-file" / "findings"), ("--state", tmp_path / "a-file"),
                           ("--database", tmp_path / "a-file" / "db"),
                           # A folder the kernel refuses files in, whoever asks (root passes permission bits).
                           ("--findings", "/sys/toolfuzz-findings")):
        argv = ["--findings", tmp_path / "findings", "--state", tmp_path / "state", option, folder]
        code, out, err = run(capsys, "--target", "selftest-key-by-id", "--budget", 60, *argv)
        assert code == 2 and out == "", err
        assert err.count("\n") == 1 and err.startswith(f"toolfuzz run: {option} {folder}: cannot write there: ")
        assert not (tmp_path / "findings").exists() and not (tmp_path / "state").exists()


def test_a_bug_in_toolfuzz_is_exit_3_with_one_line_saying_where_its_traceback_is(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr("toolfuzz.cli.run.table", broken)
    code, out, err = run(capsys, "--target", "selftest-key-by-id", "--max-examples", 20, "--seed", 1,
                         "--database", "none", "--findings", tmp_path / "findings", "--state", tmp_path / "state")
    assert code == 3
    line = err.splitlines()[-1]
    assert line.startswith("toolfuzz run: internal error, a bug in toolfuzz ") and "RuntimeError: a bug over" in line
    (kept,) = (tmp_path / "state" / "crashes").glob("run-*.txt")
    assert str(kept) in line and 'raise RuntimeError("a bug' in kept.read_text()


def test_what_a_run_writes_is_0644_under_umask_022(tmp_path, capsys):
    previous = os.umask(0o022)
    try:
        code, _, _ = run(capsys, "--target", "selftest-key-by-id", "--max-examples", 50, "--seed", 1,
                         "--database", "none", "--findings", tmp_path / "findings", "--state", tmp_path / "state",
                         "--junit", tmp_path / "run.xml", "--report", tmp_path / "run.html")
    finally:
        os.umask(previous)
    assert code == 1
    written = [*(tmp_path / "findings").rglob("*.json"), tmp_path / "run.xml", tmp_path / "run.html"]
    assert len(written) >= 3 and {oct(stat.S_IMODE(p.stat().st_mode)) for p in written} == {"0o644"}


PICKY = '''
from toolfuzz.targets.selftest.plain import assemble_chunks


def assemble(chunks):
    # A stream relayed by OpenRouter names its provider in each chunk: this assembler trips on that field,
    # which no generated case has.
    if any("provider" in chunk for chunk in chunks):
        raise KeyError("provider")
    return assemble_chunks(chunks)
'''


def test_a_run_grown_from_real_captures_finds_what_only_they_hold_and_says_which_capture(tmp_path, capsys):
    (tmp_path / "picky.py").write_text(PICKY)
    code, _, err = run(capsys, "--target", f"{tmp_path / 'picky.py'}:assemble", "--grow-from",
                       ROOT / "findings" / "captures" / "llm", "--max-examples", 300, "--seed", 1, "--database",
                       "none", "--findings", tmp_path / "found", "--state", tmp_path / "state")
    assert code == 1, err
    [path] = (tmp_path / "found").rglob("*.json")
    fixture = load(path)
    assert fixture.observed and "captured-openrouter" in fixture.case.features
    origin = fixture.found["origin"]["grown from"]
    assert "findings/captures/llm/test_tools_streaming_variant" in origin and "(response 1, interaction 1)" in origin


def test_grow_from_a_folder_without_a_capture_of_the_dialect_is_one_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, "--target", "selftest-plain", "--grow-from", ROOT / "findings" / "captures" / "llm",
                       "--dialect", "anthropic", "--max-examples", 10, "--database", "none", "--state",
                       tmp_path / "state")
    assert code == 2 and err.count("\n") == 1 and "--grow-from: no capture of dialect anthropic" in err


def test_on_a_100_column_terminal_the_summary_fits_and_wide_prints_it_whole(tmp_path, capsys, monkeypatch):
    argv = ("--target", "selftest-partial-raise-in-string", "--max-examples", 20, "--seed", 1, "--database", "none",
            "--in-process", "--findings", tmp_path / "found", "--state", tmp_path / "state")
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "robustness  selftest-partial-raise-in-string/raised_on_prefix[…]/plain" in out
    assert "(also in, first seen: left out to fit 100 columns; --wide shows them)" in out
    # On standard error only a root cause's name, a path and a command to copy are longer: never cut.
    long = [line for line in err.splitlines() if len(line) > 100]
    assert long and all(line.startswith(("diverges: ", "  -> ", "  toolfuzz show ")) for line in long), long
    assert any(line.endswith(f" {tmp_path / 'found'}/") for line in err.splitlines()[:3])  # where findings go
    code, out, err = run(capsys, *argv, "--wide")
    signature = ("selftest-partial-raise-in-string/raised_on_prefix[ValueError at toolfuzz.targets.selftest.partial."
                 "raise_in_string]/plain")
    assert code == 0 and f"robustness  {signature}  " in out and "left out" not in out
    assert "first seen" in out.splitlines()[5]
