"""Running a target: what it is handed, what it wrote, and what it answered, read as an observation."""

from __future__ import annotations

import os

from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.feeding import chunks_of
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
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


def test_what_a_target_writes_is_its_observations_output_whatever_it_answers(capfd):
    def noisy(then):
        def call(chunks):
            print("on stdout")
            os.write(2, b"on stderr\n")
            return then()
        return call

    def loop():
        while True:
            pass

    capfd.readouterr()
    answered = observe(Target("a", noisy(lambda: [])), CASE)
    raised = observe(Target("r", noisy(lambda: {}["x"])), CASE)
    late = observe(Target("t", noisy(loop)), CASE, timeout=0.5)
    assert (answered.calls, raised.raised, late.timed_out) == ((), "KeyError: 'x'", True)
    for seen in (answered, raised, late):
        assert (seen.output.stdout, seen.output.stderr) == ("on stdout\n", "on stderr\n")
    assert observe(Target("q", lambda chunks: []), CASE).output is None
    # Not part of what the target answered: the same answer with other output is the same observation.
    assert answered == Observation(seconds=answered.seconds)
    assert capfd.readouterr() == ("", "")


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


def test_a_partial_target_is_called_once_a_prefix_and_a_raise_is_that_prefixs_answer():
    from toolfuzz.targets.specs import plain_target
    from toolfuzz.judge.prefixes import prefixes_of
    text = '{"a": "xy", "n": 12}'
    seen_prefixes = []

    def parser(prefix):
        seen_prefixes.append(prefix)
        if prefix.endswith('"x'):
            raise KeyError("x")
        return None

    seen = observe(plain_target(parser, "p", "partial"), _partial_case(text, (8,)))
    assert seen_prefixes == [text[:n] for n in prefixes_of(text, (8,))] and text[:8] in seen_prefixes
    raised = [p for p in seen.prefixes if p.raised]
    assert [p.length for p in raised] == [8] and raised[0].raised == "KeyError: 'x'"
    assert str(raised[0].crash_state).startswith("KeyError at ")
    assert seen.to_json()["prefixes"][0] == {"text": 0, "length": 1, "value": "null"}


def test_a_partial_target_that_shows_no_json_value_is_a_bad_return():
    from toolfuzz.targets.specs import plain_target
    seen = observe(plain_target(lambda prefix: {"a": {1, 2}}, "p", "partial"), _partial_case('{"a": 1}'))
    assert seen.bad_return and "set" in seen.bad_return and seen.prefixes is None
    keyed = observe(plain_target(lambda prefix: {1: "a"}, "p", "partial"), _partial_case('{"a": 1}'))
    assert keyed.bad_return and "key 1" in keyed.bad_return


def _partial_case(text: str, cuts=()):
    from toolfuzz.vocabulary import COMPLETE, Call, Case, Outcome
    return Case(reads=(), expected=Outcome((Call(0, 0, "c", "f", text, COMPLETE, tuple(cuts)),)))
