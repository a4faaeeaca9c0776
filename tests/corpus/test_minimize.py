"""``corpus minimize``: fixtures shrunk again against their targets as installed, their meaning kept."""

from __future__ import annotations

import dataclasses
import shutil

from toolfuzz.corpus.entries import signature
from toolfuzz.corpus.merge import merge
from toolfuzz.corpus.minimize import minimize, shrink
from toolfuzz.corpus.fixtures import dumps, load, write_atomic
from toolfuzz.corpus.replay import load_fixtures, replay
from toolfuzz.vocabulary import StreamError
from tests.corpus.edited import bloated
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"
SHARED = FINDINGS / "selftest-shared-buffer" / "arguments_misattributed--interleaved+multi-call.json"
RAISED = FINDINGS / "openai" / "openai-stream-state--raised--index-missing.json"


def test_shrink_removes_comments_and_read_boundaries_and_keeps_what_the_case_was_built_with():
    case = load(SEED / "two-calls-interleaved.json").case
    wire = b": hello\n" + case.wire.replace(b"\n\n", b"\n\n: keep-alive\n")
    case = dataclasses.replace(case, reads=tuple(wire[i:i + 25] for i in range(0, len(wire), 25)))
    keeps_second = lambda c: b'call_w1' in c.wire and b": hello" in c.wire  # noqa: E731
    smaller, tries = shrink(case, keeps_second, deadline=float("inf"))
    assert keeps_second(smaller) and smaller.size < case.size and tries > 0
    assert len(smaller.reads) == 1  # every boundary went
    # Every event is still there, and only the comment the predicate needs: what the stream means never changes.
    assert smaller.wire == b": hello\n" + load(SEED / "two-calls-interleaved.json").case.wire
    assert (smaller.expected, smaller.events) == (case.expected, case.events)


def test_shrink_keeps_comments_where_the_bound_on_stream_bytes_decides_the_outcome():
    case = load(SEED / "two-calls-interleaved.json").case
    wire = b": keep-alive\n" + case.wire
    bounded = dataclasses.replace(case, reads=(wire,), expected=dataclasses.replace(
        case.expected, error=StreamError("stream_too_large", "the stream passed N bytes")))
    smaller, _ = shrink(bounded, lambda c: True, deadline=float("inf"))
    assert smaller.wire == wire


def test_minimize_shrinks_a_bloated_fixture_back_and_it_still_fails_as_recorded(tmp_path):
    path = bloated(SHARED, tmp_path / "selftest-shared-buffer" / SHARED.name)
    before = load(path).case.size
    (result,) = minimize([str(path)])
    assert result.action == "shrunk" and result.before == before and result.after < before
    after = load(path)
    assert after.case.size <= load(SHARED).case.size  # at least as small as the run's own shrink
    assert after.found["minimized"]["from"] == {"calls": before[0], "reads": before[1], "bytes": before[2]}
    assert after.name == load(SHARED).name and signature(after) == signature(load(SHARED))
    report = replay(load_fixtures([str(path)]))
    assert [c.verdict for c in report.cells] == ["ok", "still fails"]


def test_a_minimized_fixture_keeps_what_its_target_wrote_on_the_new_case_not_on_the_old_one(tmp_path):
    path = bloated(SHARED, tmp_path / SHARED.name)
    fixture = load(path)
    name = "selftest-shared-buffer"
    observed = {**fixture.observed, name: {**fixture.observed[name], "output": {"stdout": "on the bloated case\n"}}}
    write_atomic(path, dumps(dataclasses.replace(fixture, observed=observed)))
    (result,) = minimize([str(path)])
    # The self-test target writes nothing: what it wrote on the case it no longer records is not kept beside it.
    assert result.action == "shrunk" and "output" not in load(path).observed[name]


def test_a_minimized_fixture_is_minimal_and_left_as_it_is(tmp_path):
    path = bloated(SHARED, tmp_path / SHARED.name)
    (first,) = minimize([str(path)])
    shrunk = path.read_bytes()
    (result,) = minimize([str(path)])
    assert first.action == "shrunk" and result.action == "minimal"
    assert path.read_bytes() == shrunk


def test_dry_run_writes_nothing(tmp_path):
    path = bloated(SHARED, tmp_path / SHARED.name)
    raw = path.read_bytes()
    (result,) = minimize([str(path)], write=False)
    assert result.action == "shrunk" and path.read_bytes() == raw


def test_minimize_records_the_crash_state_of_a_raise_written_without_one_so_merge_folds_the_same_raise(tmp_path):
    found = {k: v for k, v in load(RAISED).found.items() if k != "crash_state"}
    older = dataclasses.replace(load(RAISED), found={**found, "signature": "openai-stream-state/raised/index-missing"})
    corpus = tmp_path / "corpus" / "openai"
    path = corpus / RAISED.name
    write_atomic(path, dumps(older))
    hand = tmp_path / "older.json"
    write_atomic(hand, dumps(older))
    (result,) = minimize([str(path)], write=False)
    assert result.action == "minimal" and path.read_bytes() == hand.read_bytes()
    (result,) = minimize([str(path)])
    state = load(path).found["crash_state"]
    assert result.detail == f"crash state recorded: {state}" and state.startswith("TypeError at openai.")
    assert signature(load(path)) == f"openai-stream-state/raised[{state}]/index-missing"
    assert load(path).statement == load(hand).statement and load(path).case == load(hand).case
    assert state == load(RAISED).found["crash_state"]
    # The same raise as a night's run writes it (the state in its signature) is now the one already there.
    night = tmp_path / "night" / "openai-stream-state" / "raised.json"
    night.parent.mkdir(parents=True)
    shutil.copy(path, night)
    (merged,) = merge([str(night.parent)], tmp_path / "corpus")
    assert merged.action == "kept" and merged.path == path
    # Before the state was recorded, it would have gone in beside it as a root cause of its own.
    write_atomic(path, hand.read_bytes())
    (merged,) = merge([str(night.parent)], tmp_path / "corpus")
    assert merged.action == "added"
