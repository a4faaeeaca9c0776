"""The sse level through the harness: what a decoder is handed, its events checked and recorded, found and replayed."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pytest

from toolfuzz.cli import main
from toolfuzz.corpus.fixtures import Fixture, FixtureError, dumps, iter_fixture_paths, load, loads
from toolfuzz.vocabulary import Case, Outcome, SSEEvent
from toolfuzz.judge.sandbox import observe
from toolfuzz.corpus.replay import load_fixtures, replay
from toolfuzz.targets.base import Target
from toolfuzz.targets.reference import assemble
from toolfuzz.targets.registry import REFERENCE_SSE
from tests.paths import ROOT

ROOT = ROOT
SEED = ROOT / "findings" / "seed"
WIRE = b"id: 7\r\ndata: a\r\n\r\nevent: error\r\ndata: b\r\ndata: \xc3\xa9\r\n\r\n"
EVENTS = (SSEEvent("a", id="7"), SSEEvent("b\né", "error", "7"))
CASE = Case(reads=(WIRE[:3], WIRE[3:], b""), expected=Outcome(), events=EVENTS)


def sse_target(fn, name="decoder"):
    return Target(name=name, fn=fn, level="sse")


# -- observe -----------------------------------------------------------------

def test_an_sse_target_gets_the_reads_as_cut():
    seen = []
    observe(sse_target(lambda reads: seen.extend(reads) or []), CASE)
    assert seen == list(CASE.reads)


def test_unset_types_and_ids_read_as_the_spec_defaults():
    obs = observe(sse_target(lambda reads: [{"data": "a"}, {"event": None, "data": "b", "id": None},
                                            {"event": "", "data": "c", "id": "7"}]), CASE)
    assert obs.events == (SSEEvent("a"), SSEEvent("b"), SSEEvent("c", id="7"))
    assert obs.to_json() == {"events": [{"event": "message", "data": "a", "id": ""},
                                        {"event": "message", "data": "b", "id": ""},
                                        {"event": "message", "data": "c", "id": "7"}]}


@pytest.mark.parametrize("returned, words", [
    ({"data": "a"}, "not a list of events"),
    (["a"], "event 0 is str"),
    ([{"event": "x"}], "event 0: data is NoneType"),
    ([{"data": b"a"}], "event 0: data is bytes"),
    ([{"data": "a"}, {"data": "b", "id": 7}], "event 1: id is int"),
])
def test_a_return_that_is_not_a_list_of_events_is_a_bad_return(returned, words):
    obs = observe(sse_target(lambda reads: returned), CASE)
    assert obs.events is None and words in obs.bad_return


def test_an_sse_target_is_sandboxed_and_timed_like_the_others():
    assert "subprocess.Popen" in observe(sse_target(lambda reads: subprocess.run(["true"]) and []), CASE).blocked

    def loops(reads):
        while True:
            pass

    assert observe(sse_target(loops), CASE, timeout=0.2).timed_out


def test_the_reference_decoder_agrees_with_the_case():
    assert observe(REFERENCE_SSE, CASE).events == EVENTS


# -- fixtures ----------------------------------------------------------------

def test_events_are_written_and_read_back():
    text = dumps(Fixture(CASE, name="sse"))
    assert json.loads(text)["events"][1] == {"event": "error", "data": "b\né", "id": "7"}
    assert loads(text).case.events == EVENTS


def test_a_fixture_without_events_reads_as_not_recorded():
    doc = json.loads(dumps(Fixture(CASE, name="sse")))
    del doc["events"]
    assert loads(json.dumps(doc)).case.events is None
    assert "events" not in json.loads(dumps(Fixture(Case(reads=CASE.reads, expected=Outcome()), name="old")))


def test_every_fixture_in_findings_still_loads():
    paths = iter_fixture_paths([str(ROOT / "findings")])
    assert paths and all(load(p).case.reads for p in paths)


@pytest.mark.parametrize("events, field", [
    ({}, "events"),
    (["x"], "events[0]"),
    ([{"event": "x"}], "events[0].data"),
    ([{"data": "a"}, {"data": "b", "id": 7}], "events[1].id"),
    ([{"data": "a", "event": None}], "events[0].event"),
])
def test_bad_events_are_one_error_naming_the_file_and_field(events, field):
    doc = json.loads(dumps(Fixture(CASE, name="sse")))
    doc["events"] = events
    with pytest.raises(FixtureError) as caught:
        loads(json.dumps(doc), "bad.json")
    assert caught.value.source == "bad.json" and caught.value.field == field


# -- replay ------------------------------------------------------------------

def test_recorded_events_the_reference_decoder_disagrees_with_fail_the_replay(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    case = Case(reads=CASE.reads, expected=assemble(CASE.reads), events=EVENTS)  # "a" is not a chunk: bad_chunk
    good.write_text(dumps(Fixture(case, name="good")))
    bad.write_text(dumps(Fixture(dataclasses.replace(case, events=EVENTS[:1]), name="bad")))
    report = replay(load_fixtures([str(good), str(bad)]), [])
    assert [(c.fixture.fixture.name, c.verdict, c.kind) for c in report.cells] == [
        ("good", "ok", None), ("bad", "unexpected", "phantom_event")]
    assert "reference decoder" in report.cells[1].detail


# -- run and replay, end to end ---------------------------------------------

SPLITS_ON_LF_ONLY = '''
def decode(reads):
    """Takes LF LF for the only event boundary: CRLF and CR streams lose their events."""
    out = []
    for block in b"".join(reads).split(b"\\n\\n")[:-1]:
        data = [line[6:].decode() for line in block.split(b"\\n") if line.startswith(b"data: ")]
        if data:
            out.append({"data": "\\n".join(data)})
    return out
'''


def test_a_broken_decoder_is_found_saved_and_replayed(tmp_path, capsys):
    source = tmp_path / "lf_only.py"
    source.write_text(SPLITS_ON_LF_ONLY)
    spec = f"{source}:decode"
    findings = tmp_path / "findings"
    # Ended by its examples, never by the budget (only a bound on a hang): what it finds and how far it
    # reduces it then depend on the seed alone, not on the machine's speed.
    code = main(["run", "--target", "reference-sse", "--target", spec, "--level", "sse", "--max-examples", "20",
                 "--budget", "600", "--seed", "11", "--findings", str(findings)])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "(examples spent)" in err, err[-500:]
    table = {line.split()[0]: line for line in out.splitlines() if line.startswith(("reference-sse", str(source)))}
    assert table["reference-sse"].split()[1:3] == ["sse", "0"]
    files = sorted(findings.rglob("*.json"))
    assert files and all(f.parent.name != "reference-sse" for f in files)
    first = load(files[0])
    assert first.case.events is not None
    assert first.observed[spec]["level"] == "sse" and "events" in first.observed[spec]["observation"]
    assert main(["replay", "--target", spec, "--level", "sse", *map(str, files)]) == 0
    out, _ = capsys.readouterr()
    assert "still fails" in out and "unexpected" in out and "0 unexpected" in out


def test_show_lists_the_expected_events_and_the_decoders():
    from toolfuzz.cli.show import render

    observed = {"decoder": {"verdict": "diverges", "kind": "event_lost",
                            "observation": {"events": [{"event": "message", "data": "b\né", "id": ""}]}}}
    text = render(Fixture(CASE, name="sse", observed=observed))
    expected_part, _, decoder_part = text.partition("events from decoder:")
    assert "events the wire dispatches:" in expected_part and "error  id='7'  'b\\né'" in expected_part
    assert "message  id=''  'b\\né'" in decoder_part
