"""toolfuzz.outputs.console: a run's events as a person reads them on stderr."""

from __future__ import annotations

import io
import shlex
from dataclasses import replace

from tests.corpus.test_findings import finding, raising
from toolfuzz.corpus.findings import FindingWriter
from toolfuzz.identity import CrashState
from toolfuzz.engine.events import Finished, Found, Note, Progress, Started, Stats
from toolfuzz.outputs.console import Console


def test_each_event_says_what_a_person_needs_and_a_finding_where_it_went(tmp_path):
    out = io.StringIO()  # not a terminal: plain lines, no live line to clear
    writer = FindingWriter(tmp_path)
    console = Console(out, writer)
    older = replace(finding("two-calls-interleaved", features=("openai", "interleaved", "crlf")), seed=1)
    found = replace(finding("two-calls-interleaved"), seed=1)
    stats = Stats(examples=12, stopped_by="examples", divergences={found.target.name: 1}, flaky=["Flaky: x"],
                  hits={found.signature: 3}, reducing="t: k", probes=40)
    for event in (Started(("a", "b"), 7, 100, 30.0, 1), Note("tools.json: rewrote something"),
                  Progress(stats, "finishing"), Found(older), Found(found, (older.signature,)), Finished(stats)):
        writer(event)
        console(event)
    lines = out.getvalue().splitlines()
    path, what = writer.where(found)
    assert what == "written" and path.is_file()
    # The finding it replaced was written by this run, and is gone: one root cause, one file.
    assert [p.name for p in tmp_path.rglob("*.json")] == [path.name]
    assert lines[0] == ("toolfuzz run: 2 targets, seed 7 (rerun with --seed 7), up to 100 examples or 30 s; "
                        f"findings go to {tmp_path}/")
    assert lines[1] == "note: tools.json: rewrote something"
    assert lines[2].startswith("12 examples (") and ", 1 root cause, 3 hits, reducing t: k, finishing, " in lines[2]
    # The severity before what went wrong, and why it is that severity: interleaved calls are drawn because
    # the wire's keying allows them, and no capture shows a server sending them.
    assert lines[8:14] == [f"diverges: {found.signature}", f"  robustness: {found.divergence.detail}",
                           "  (data is corrupted, made up or given to the wrong call; shapes interleaved inferred)",
                           f"  -> {path}", f"  toolfuzz show {path}",
                           f"  replaces {older.signature} (it needed more features)"]
    assert lines[14].startswith("done: 12 examples in ") and "(examples spent); 3 later divergences" in lines[14]
    assert lines[15] == "flaky: Flaky: x"


def test_the_show_command_of_a_finding_is_quoted_for_the_shell(tmp_path):
    out = io.StringIO()
    root = tmp_path / "night's findings [2]"  # a space, a quote and a glob, as a user's folder may have
    writer = FindingWriter(root)
    found = replace(finding("two-calls-interleaved"), seed=1)
    for event in (Found(found),):
        writer(event)
        Console(out, writer)(event)
    path, _ = writer.where(found)
    (shown,) = [line for line in out.getvalue().splitlines() if line.startswith("  toolfuzz show ")]
    assert shlex.split(shown) == ["toolfuzz", "show", str(path)]


def test_on_a_terminal_what_is_said_in_words_is_folded_and_names_paths_and_commands_never_are(tmp_path):
    out = io.StringIO()
    writer = FindingWriter(tmp_path / ("a-folder-with-a-rather-long-name-" * 2))
    found = replace(finding("two-calls-interleaved"), seed=1)
    found = replace(found, divergence=replace(found.divergence, detail="a detail of many words " * 8))
    stats = Stats(examples=12, stopped_by="examples", unreduced=3)
    console = Console(out, writer, fit=80)
    for event in (Found(found), Finished(stats)):
        writer(event)
        console(event)
    path, _ = writer.where(found)
    lines = out.getvalue().splitlines()
    long = [line for line in lines if len(line) > 80]
    assert long and all(line in (f"  -> {path}", f"  toolfuzz show {shlex.quote(str(path))}") for line in long)
    assert lines[0] == f"diverges: {found.signature}"
    # The detail goes on under itself, every word kept.
    detail = lines[1:next(n for n, line in enumerate(lines) if line.startswith("  ("))]
    assert len(detail) > 1 and " ".join(detail).split() == f"robustness: {found.divergence.detail}".split()
    reduced = lines[next(n for n, line in enumerate(lines) if line.startswith("not reduced: 3 divergences")):]
    assert len(reduced) > 1 and all(line.startswith("  ") for line in reduced[1:])
    # Not fitted (a pipe, or --wide): each said on a line of its own, as before.
    plain = io.StringIO()
    Console(plain, writer)(Found(found))
    assert plain.getvalue().splitlines()[1] == f"  robustness: {found.divergence.detail}"


def test_on_a_terminal_a_raise_whose_name_is_too_long_has_its_crash_state_on_a_line_of_its_own(tmp_path):
    state = CrashState("ValueError", ("toolfuzz_examples.a_rather_long_module_name.parse_the_string",))
    found = replace(raising(state), seed=1)
    writer = FindingWriter(tmp_path)
    out = io.StringIO()
    console = Console(out, writer, fit=100)
    writer(Found(found))
    console(Found(found))
    lines = out.getvalue().splitlines()
    assert len(f"diverges: {found.signature}") > 100
    assert lines[:2] == [f"diverges: {found.signature.replace(f'[{state}]', '[…]')}",
                         f"  […] is the crash state {state}"]
    # Not fitted (a pipe, or --wide), the signature is whole.
    plain = io.StringIO()
    Console(plain, writer)(Found(found))
    assert plain.getvalue().splitlines()[0] == f"diverges: {found.signature}"
