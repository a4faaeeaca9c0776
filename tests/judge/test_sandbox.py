"""Running a target: what it is handed, and what it may not do."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.sandbox import chunks_of, observe
from toolfuzz.targets.base import Target
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
CASE = load(SEED / "read-splits-multibyte.json").case


def test_events_targets_get_parsed_chunks_and_bytes_targets_get_the_reads():
    seen = {}
    observe(Target("e", lambda chunks: seen.setdefault("events", chunks) and []), CASE)
    observe(Target("b", lambda reads: seen.setdefault("bytes", reads) and [], level="bytes"), CASE)
    assert all(isinstance(c, dict) for c in seen["events"]) and len(seen["events"]) == 4  # [DONE] is not a chunk
    assert seen["bytes"] == list(CASE.reads)


def test_a_target_cannot_change_what_the_next_one_sees():
    payloads = chunks_of(CASE)

    def vandal(chunks):
        chunks[0]["choices"] = []
        return []

    observe(Target("v", vandal), CASE, payloads)
    seen = []
    observe(Target("w", lambda chunks: seen.extend(chunks) or []), CASE, payloads)
    assert seen[0]["choices"]


def test_writing_outside_the_temporary_folder_is_blocked(tmp_path):
    target_file = Path.home() / ".toolfuzz-should-not-exist"

    def scribble(chunks):
        with open(target_file, "w") as f:
            f.write("x")
        return []

    obs = observe(Target("s", scribble), CASE)
    assert obs.blocked and "open for writing" in obs.blocked
    assert not target_file.exists()


def test_writing_inside_the_temporary_folder_is_allowed():
    def scratch(chunks):
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("ok")
        return []

    assert observe(Target("t", scratch), CASE).blocked is None


def test_starting_a_process_is_blocked():
    obs = observe(Target("p", lambda chunks: subprocess.run(["true"]) and []), CASE)
    assert obs.blocked and "subprocess.Popen" in obs.blocked


def test_an_except_clause_in_the_target_cannot_swallow_the_block():
    def sneaky(chunks):
        try:
            os.system("true")
        except Exception:
            pass
        return []

    assert observe(Target("q", sneaky), CASE).blocked


def test_outside_a_target_nothing_is_blocked(tmp_path):
    observe(Target("r", lambda chunks: []), CASE)
    assert subprocess.run(["true"]).returncode == 0


def test_events_targets_are_fed_the_events_known_by_construction_not_the_reference_decoder(monkeypatch):
    from toolfuzz.targets.reference import sse

    before = chunks_of(CASE)
    # A reference decoder that dispatches nothing: if the judge leaned on it, every target would starve.
    monkeypatch.setattr(sse.SSEDecoder, "feed", lambda self, data: [])
    assert CASE.events is not None and chunks_of(CASE) == before and len(before) == 4


def test_a_target_that_takes_the_request_gets_the_cases_tools_and_limits():
    seen = {}

    def fn(reads, tools, limits):
        seen.update(tools=tools, limits=limits)
        return []

    observe(Target("r", fn, level="bytes", takes_request=True), CASE)
    assert seen == {"tools": CASE.tools, "limits": CASE.limits} and CASE.tools


def test_a_target_that_claims_errors_must_say_which_error_it_ended_with():
    claims = frozenset({"errors"})
    good = observe(Target("g", lambda chunks: {"calls": [], "stream_error": "server_error"}, reports=claims), CASE)
    assert (good.error, good.bad_return) == ("server_error", None)
    bare = observe(Target("b", lambda chunks: [], reports=claims), CASE)
    assert "must return" in bare.bad_return
    unknown = observe(Target("u", lambda chunks: {"calls": [], "stream_error": "oops"}, reports=claims), CASE)
    assert "'oops' is not one of" in unknown.bad_return
