"""The fixture file: round trips, readable wire, atomic writes, and one clear error per bad field."""

from __future__ import annotations

import json
import os
import stat

import pytest

from toolfuzz.corpus.fixtures import FORMAT, Fixture, FixtureError, dumps, iter_fixture_paths, load, loads, write_atomic
from toolfuzz.vocabulary import Call, Case, Limits, Outcome, StreamError, Tool
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"


def sample(reads=(b"data: {}\r\n\r\n", b"data: \xc3", b"\xa9\n\n"), limits=Limits()) -> Fixture:
    case = Case(reads=tuple(reads),
                expected=Outcome((Call(0, 1, "b", "g", '{"n": 123456789012345678901234567890}', "complete", (4, 9)),
                                  Call(0, 0, None, None, "", "incomplete")), StreamError("server_error", "x")),
                tools=(Tool("g", {"type": "object"}),), limits=limits, features=("openai", "crlf"))
    return Fixture(case=case, name="sample", description="d", observed={"t": {"verdict": "diverges"}},
                   found={"by": "hand"})


def test_round_trip_keeps_reads_cuts_outcome_and_big_integers():
    f = sample(limits=Limits(max_events=9))
    again = loads(dumps(f))
    assert again == f
    assert again.case.reads == f.case.reads
    # Where the stream cut the arguments (what the partial level parses at) is kept, though not compared.
    assert again.case.expected.calls[1].cuts == (4, 9)


def test_a_call_the_wire_gave_no_index_says_so_and_reads_back():
    f = sample()
    unindexed = Outcome((Call(0, 0, "a", "g", "{}", "complete", indexed=False),))
    f = Fixture(case=Case(reads=f.case.reads, expected=unindexed, features=("index-missing",)), name="u")
    assert json.loads(dumps(f))["expected"]["calls"][0]["indexed"] is False
    assert "indexed" not in json.loads(dumps(sample()))["expected"]["calls"][0]
    assert [c.indexed for c in loads(dumps(f)).case.expected.calls] == [False]
    assert [c.indexed for c in loads(dumps(sample())).case.expected.calls] == [True, True]


@pytest.mark.parametrize("features,dialect,indexed", [
    (["index-missing"], "openai-chat", False), (["index-null", "role-chunk"], "openai-chat", False),
    (["openai"], "openai-chat", True), (["index-missing"], "anthropic", True),
])
def test_a_fixture_written_before_calls_said_whether_they_were_indexed_reads_it_off_its_profiles(
        features, dialect, indexed):
    doc = json.loads(dumps(sample()))
    doc.update(features=features, dialect=dialect)
    assert {c.indexed for c in loads(json.dumps(doc)).case.expected.calls} == {indexed}
    # Once a call says so, the fixture is taken at its word.
    doc["expected"]["calls"][0]["indexed"] = True
    assert [c.indexed for c in loads(json.dumps(doc)).case.expected.calls] == [True, True]


def test_utf8_wires_are_readable_lines_with_byte_cuts():
    doc = json.loads(dumps(sample()))
    assert doc["format"] == FORMAT
    assert doc["wire"] == {"encoding": "utf-8", "lines": ["data: {}\r\n", "\r\n", "data: é\n", "\n"], "cuts": [12, 19]}
    assert "limits" not in doc  # defaults are left out


def test_non_utf8_wires_are_base64():
    f = sample(reads=(b"data: \xff\n\n",))
    doc = json.loads(dumps(f))
    assert doc["wire"]["encoding"] == "base64"
    assert loads(dumps(f)).case.wire == b"data: \xff\n\n"


def test_empty_reads_survive_as_repeated_cuts():
    f = sample(reads=(b"", b"data: 1\n", b"", b"\n"))
    assert loads(dumps(f)).case.reads == (b"", b"data: 1\n", b"", b"\n")


def test_files_are_diff_friendly():
    text = dumps(sample())
    assert text.endswith("\n") and text.splitlines()[1].startswith('  "')
    keys = list(json.loads(text))
    assert keys == sorted(keys)


def broken(mutate) -> bytes:
    doc = json.loads(dumps(sample()))
    mutate(doc)
    return json.dumps(doc).encode()


@pytest.mark.parametrize("mutate,field,words", [
    (lambda d: d.update(format="toolfuzz-fixture/9"), "format", "unsupported format"),
    (lambda d: d.pop("name"), "name", "missing"),
    (lambda d: d.update(tools={}), "tools", "must be a list"),
    (lambda d: d["tools"][0].update(name=3), "tools[0].name", "must be a string"),
    (lambda d: d["wire"].update(encoding="utf-16"), "wire.encoding", "must be 'utf-8' or 'base64'"),
    (lambda d: d["wire"].update(cuts=[5, 2]), "wire.cuts[1]", "outside"),
    (lambda d: d["wire"].update(cuts=[10 ** 9]), "wire.cuts[0]", "outside"),
    (lambda d: d["wire"].update(cuts=[True]), "wire.cuts[0]", "not a boolean"),
    (lambda d: d["wire"].update(lines="data"), "wire.lines", "must be a list"),
    (lambda d: d["expected"]["calls"][0].update(status="done"), "expected.calls[0].status", "must be one of"),
    (lambda d: d["expected"]["calls"][1].update(index="0"), "expected.calls[1].index", "must be an integer"),
    (lambda d: d["expected"]["calls"][1].update(cuts=[3, 3]), "expected.calls[1].cuts[1]", "outside"),
    (lambda d: d["expected"]["calls"][0].update(cuts=[10 ** 9]), "expected.calls[0].cuts[0]", "outside"),
    (lambda d: d["expected"]["calls"][0].update(cuts="3"), "expected.calls[0].cuts", "must be a list"),
    (lambda d: d["expected"]["calls"][0].update(indexed=0), "expected.calls[0].indexed", "must be a boolean"),
    (lambda d: d["expected"].update(error=[1]), "expected.error", "an object or null"),
    (lambda d: d.update(limits={"max_events": 0}), "limits.max_events", "positive"),
    (lambda d: d.update(limits={"max_calls": 3}), "limits.max_calls", "unknown bound"),
    (lambda d: d.update(observed={"t": 3}), "observed.t", "must be an object"),
    (lambda d: d.update(observed={"t": {"output": "x"}}), "observed.t.output", "must be an object"),
    (lambda d: d.update(observed={"t": {"output": {"stdout": 1}}}), "observed.t.output.stdout", "must be a string"),
    (lambda d: d.update(observed={"t": {"output": {"stdin": ""}}}), "observed.t.output.stdin", "unknown stream"),
])
def test_each_bad_field_is_named(mutate, field, words):
    with pytest.raises(FixtureError) as e:
        loads(broken(mutate), "f.json")
    assert e.value.source == "f.json" and e.value.field == field
    assert words in str(e.value) and str(e.value).startswith(f"f.json: {field}: ")


@pytest.mark.parametrize("raw,words", [
    (b"\xff\xfe", "not UTF-8"), (b"{", "not JSON"), (b"[]", "must be a JSON object"),
    (b'{"format": NaN}', "not JSON"), (b"[" * 200_000, "nested too deeply"),
])
def test_what_is_not_a_fixture_at_all_is_one_error(raw, words):
    with pytest.raises(FixtureError, match=words):
        loads(raw, "x.json")


def test_a_missing_file_is_one_error_naming_it(tmp_path):
    with pytest.raises(FixtureError, match="nope.json: cannot read"):
        load(tmp_path / "nope.json")


def test_an_atomic_write_leaves_the_old_file_whole_when_it_fails(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    write_atomic(target, "old\n")

    def fail(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]  # no temporary left behind


def test_the_seed_fixtures_load():
    names = sorted(p.stem for p in SEED.glob("*.json"))
    assert {"two-calls-interleaved", "first-fragment-without-id", "cut-inside-string", "cut-after-backslash",
            "read-splits-multibyte", "disconnect-mid-arguments", "completed-invalid-json"} <= set(names)
    for p in SEED.glob("*.json"):
        assert load(p).name == p.stem


def test_an_atomic_write_of_bytes_writes_them_exactly_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "new" / "x.sse"
    write_atomic(target, b"\xff\x00data")
    assert target.read_bytes() == b"\xff\x00data"
    write_atomic(target, "again é\n")
    assert target.read_bytes() == "again é\n".encode() and [p.name for p in target.parent.iterdir()] == ["x.sse"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_an_atomic_write_gives_the_file_the_mode_the_umask_leaves_like_any_new_file(tmp_path, umask, mode):
    target = tmp_path / "f.json"
    previous = os.umask(umask)
    try:
        write_atomic(target, "new\n")
        write_atomic(target, "replaced\n")  # a file written over keeps the same rule
    finally:
        os.umask(previous)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_lone_surrogates_a_target_observed_are_written_as_escapes_and_read_back():
    f = sample()
    odd = Fixture(case=f.case, name="odd", observed={"t": {"arguments": "a\ud83db"}})
    text = dumps(odd)
    assert "\\ud83d" in text
    text.encode("utf-8")  # the file is UTF-8
    assert loads(text).observed["t"]["arguments"] == "a\ud83db"


def test_a_recorded_regression_range_round_trips_and_reads_as_a_range():
    from dataclasses import replace

    from toolfuzz.corpus.fixtures import history_text

    entry = {"package": "openai", "tested": {"1.3.0": "passes", "1.4.0": "fails", "1.6.2": "fails", "1.6.3": "passes"},
             "introduced": "1.4.0", "fixed": "1.6.3"}
    f = replace(sample(), history={"openai-stream-state": entry})
    assert loads(dumps(f)) == f and json.loads(dumps(f))["history"]["openai-stream-state"] == entry
    assert history_text(entry) == "openai 1.4.0 – 1.6.2, fixed in 1.6.3"
    assert history_text({"package": "p", "tested": {"1": "passes"}}) == "p: passes on every release tested"
    # Releases in their order, not the file's (its keys are sorted as text: 0.10.0 before 0.8.0).
    stored = {"package": "jiter", "fixed": "0.11.0",
              "tested": {"0.10.0": "fails", "0.11.0": "passes", "0.8.0": "fails", "0.9.1": "fails"}}
    assert history_text(stored) == "jiter 0.8.0 – 0.10.0, fixed in 0.11.0"
    moved = {"package": "jiter", "tested": {"0.8.0": "changed", "0.9.1": "passes"}}
    assert history_text(moved) == "jiter: the recorded root cause on no release tested"
    bad = json.loads(dumps(f))
    bad["history"]["openai-stream-state"]["tested"]["1.4.0"] = "maybe"
    with pytest.raises(FixtureError, match=r"history\.openai-stream-state\.tested\.1\.4\.0: must be fails, passes, "
                                           r"changed or error, not 'maybe'"):
        loads(json.dumps(bad))


def test_a_folder_walk_leaves_out_the_recordings_of_a_captures_folder(tmp_path):
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "recorded.json").write_text("[]")
    (tmp_path / "fixture.json").write_text("{}")
    assert iter_fixture_paths([str(tmp_path)]) == [tmp_path / "fixture.json", tmp_path / "source" / "recorded.json"]
    (tmp_path / "source" / "captures.toml").write_text("")
    assert iter_fixture_paths([str(tmp_path)]) == [tmp_path / "fixture.json"]
