"""The corpus (harness/corpus/curation.py): merge by signature keeping the smallest, shrink again, check what changed."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from toolfuzz.corpus.curation import check, load_corpus, merge, minimize, shrink, signature
from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import FixtureError, dumps, iter_fixture_paths, load, loads, write_atomic
from toolfuzz.corpus.grades import diverging
from toolfuzz.corpus.replay import load_fixtures, replay
from toolfuzz.targets.base import Target
from toolfuzz.targets.selftest import PLAIN, SELFTEST
from toolfuzz.vocabulary import StreamError
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"
SHARED = FINDINGS / "selftest-shared-buffer" / "arguments_misattributed--interleaved+multi-call.json"
HAND_OUT = "selftest-hand-out-after-disconnect"
RAISED = FINDINGS / "openai" / "openai-stream-state--raised--index-missing.json"


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def bloated(path: Path, out: Path) -> Path:
    """The fixture at ``path`` with keep-alive comments before every event and its wire cut into 40-byte reads."""
    fixture = load(path)
    wire = b": keep-alive\n" + fixture.case.wire.replace(b"\n\n", b"\n\n: keep-alive\n")
    reads = tuple(wire[i:i + 40] for i in range(0, len(wire), 40))
    # What the stream means is unchanged: the same events, the same expected outcome.
    case = dataclasses.replace(fixture.case, reads=reads)
    write_atomic(out, dumps(dataclasses.replace(fixture, case=case)))
    return out


def recording(path: Path, out: Path, observed: dict) -> Path:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["observed"] = observed
    write_atomic(out, json.dumps(doc, indent=2) + "\n")
    return out


# -- signatures and merge ----------------------------------------------------

def test_a_fixture_signature_is_the_one_its_run_recorded_and_can_be_worked_out_without_it():
    entries = [e for e in load_corpus([str(FINDINGS)]) if e.path.parent.name.startswith("selftest-")]
    assert len(entries) >= 9
    for e in entries:
        assert e.signature == e.fixture.found["signature"], e.path
        unsigned = dataclasses.replace(e.fixture, found={"by": "hand"})
        assert signature(unsigned) == e.fixture.found["signature"], e.path


def test_every_library_fixture_says_what_goes_wrong_for_its_user():
    # A maintainer reads the statement first (findings/README.md): a library's divergence without one has not
    # been checked against the library's code.  The self-test mutants' fixtures need none.
    mutants = {t.name for t in (PLAIN, *SELFTEST)}
    unstated = sorted(e.path.relative_to(FINDINGS).as_posix() for e in load_corpus([str(FINDINGS)])
                      if not e.fixture.statement.strip()
                      and any(target not in mutants for target, _ in diverging(e.fixture)))
    assert not unstated, f"{len(unstated)} library fixtures without a statement:\n" + "\n".join(unstated)


def test_a_fixture_with_no_recorded_divergence_is_known_by_its_content(tmp_path):
    a = load(SEED / "cut-inside-string.json")
    assert signature(a).startswith("case/") and signature(a) == signature(loads(dumps(a)))
    renamed = dataclasses.replace(a, name="another name", description="words")
    assert signature(renamed) == signature(a)  # the same case under another name is the same fixture
    assert signature(load(SEED / "cut-after-backslash.json")) != signature(a)


def test_a_new_fixture_goes_beside_the_corpus_s_fixtures_of_its_target_in_the_corpus_s_layout(tmp_path):
    # findings/ keeps a library's targets in one folder (smolagents/smolagents-agglomerate--<kind>--...); a run
    # writes <target>/<kind>--....  Merging a run's output into findings/ keeps findings/'s layout.
    corpus = copy_tree(FINDINGS / "smolagents", tmp_path / "findings" / "smolagents")
    moved = corpus / "smolagents-agglomerate--arguments_misattributed--index-zero+multi-call.json"
    raw = tmp_path / "raw" / "smolagents-agglomerate"
    raw.mkdir(parents=True)
    shutil.move(moved, raw / "arguments_misattributed--index-zero+multi-call.json")
    done = merge([str(tmp_path / "raw")], tmp_path / "findings")
    assert [(m.action, m.path) for m in done] == [("added", moved)]
    assert moved.read_bytes() == (FINDINGS / "smolagents" / moved.name).read_bytes()
    # A target the corpus has no fixture of keeps the layout it came in.
    other = tmp_path / "raw2" / "selftest-shared-buffer"
    other.mkdir(parents=True)
    shutil.copy(SHARED, other / SHARED.name)
    (added,) = merge([str(tmp_path / "raw2")], tmp_path / "findings")
    assert added.path == tmp_path / "findings" / "selftest-shared-buffer" / SHARED.name


def test_merging_into_an_empty_corpus_adds_every_file_byte_for_byte_in_the_same_layout(tmp_path):
    into = tmp_path / "corpus"
    done = merge([str(FINDINGS)], into)
    # findings/'s library folders are derived by these very rules (docs/corpus.md), so none of theirs is folded;
    # a mutant's fixtures of other kinds are variants of its one mistake.
    folded = [m for m in done if m.action == "folded"]
    assert folded and all(m.source.parent.name.startswith("selftest-")
                          and m.detail.startswith(f"into {m.source.parent.name}/") and "a variant" in m.detail
                          for m in folded), folded
    assert {m.action for m in done} == {"added", "folded"}
    into_kept = {m.path for m in folded}
    for source in iter_fixture_paths([str(FINDINGS)]):
        copy = into / source.relative_to(FINDINGS)
        if copy in into_kept:
            # What was folded in is kept there as a variant: the file is the same fixture with its variants.
            kept = load(copy)
            assert dumps(dataclasses.replace(kept, variants=())) == source.read_text(encoding="utf-8"), copy
            assert {v.signature for v in kept.variants} == {m.signature for m in folded if m.path == copy}
        elif source not in {m.source for m in folded}:
            assert copy.read_bytes() == source.read_bytes(), copy
    assert len(done) == len(iter_fixture_paths([str(FINDINGS)]))


def test_a_client_s_finding_that_the_decoder_below_it_explains_is_folded_into_the_decoder_s(tmp_path):
    # openai-client reads its bytes with the SDK's SSE decoder (Target.builds_on): the decoder's first event
    # lost after a BOM is, in the client, a call's id lost; one root cause, kept under the decoder.
    decoder = FINDINGS / "openai" / "openai-sse--event_lost--bom.json"
    doc = json.loads(decoder.read_text(encoding="utf-8"))
    doc["observed"] = {"openai-client": {"verdict": "diverges", "kind": "id_differs", "level": "bytes",
                                         "detail": "call 0 of choice 0: expected id 'call_1', got None"}}
    doc["found"] = {k: v for k, v in doc["found"].items() if k != "signature"}
    doc["statement"] = ""
    write_atomic(tmp_path / "night" / "openai-client" / "id_differs--bom.json", json.dumps(doc, indent=2) + "\n")
    into = copy_tree(FINDINGS / "openai", tmp_path / "corpus" / "openai")
    (folded,) = merge([str(tmp_path / "night")], tmp_path / "corpus")
    assert (folded.action, folded.path) == ("folded", into / decoder.name)
    assert folded.detail == "into openai-sse/event_lost/bom (a variant of it, as id_differs)"


def test_a_bug_a_release_fixed_is_a_root_cause_of_its_own_beside_one_the_library_has_now(tmp_path):
    old = load(FINDINGS / "httpx-sse" / "httpx-sse--data_differs--plain--0.4.0.json")
    assert old.history["httpx-sse"]["fixed"] == "0.4.2"
    # The same divergence, recorded with no range: as a run on the newest release would write it.
    now = dataclasses.replace(old, history={})
    write_atomic(tmp_path / "in" / "old.json", dumps(old))
    write_atomic(tmp_path / "in" / "now.json", dumps(now))
    write_atomic(tmp_path / "in" / "bom.json", (FINDINGS / "httpx-sse" / "httpx-sse--event_lost--bom.json").read_text())
    assert (signature(old), signature(now)) == ("httpx-sse<0.4.2/data_differs/plain", "httpx-sse/data_differs/plain")
    done = {m.source.name: (m.action, m.detail) for m in merge([str(tmp_path / "in")], tmp_path / "corpus")}
    # A plain root cause explains every other kind of its target, but only of the releases it fails on.
    assert done["old.json"][0] == "added" and done["now.json"][0] == "added"
    assert done["bom.json"] == ("folded", "into httpx-sse/data_differs/plain (a variant of it, as event_lost)")


def test_merging_the_same_fixtures_again_keeps_them_all_and_writes_nothing(tmp_path):
    into = tmp_path / "corpus"
    merge([str(FINDINGS)], into)
    before = {p: p.stat().st_mtime_ns for p in into.rglob("*.json")}
    first = {m.source.relative_to(FINDINGS): m.action for m in merge([str(FINDINGS)], tmp_path / "control")}
    again = merge([str(copy_tree(FINDINGS, tmp_path / "again"))], into)
    # What was added is kept; what was folded (tests above) is folded again.
    assert {m.source.relative_to(tmp_path / "again"): "added" if m.action == "kept" else m.action
            for m in again} == first
    assert {p: p.stat().st_mtime_ns for p in into.rglob("*.json")} == before


def test_a_smaller_fixture_replaces_its_signature_and_a_larger_one_is_kept_out(tmp_path):
    into = copy_tree(FINDINGS / "selftest-shared-buffer", tmp_path / "corpus" / "selftest-shared-buffer").parent
    big_dir = tmp_path / "big"
    bloated(SHARED, big_dir / "elsewhere.json")
    (kept,) = merge([str(big_dir)], into)
    assert kept.action == "kept" and kept.path == into / SHARED.relative_to(FINDINGS.parent / "findings")
    assert kept.path.read_bytes() == SHARED.read_bytes()
    # Now the other way round: the bloated one is in the corpus, the small one comes in.
    write_atomic(kept.path, (big_dir / "elsewhere.json").read_bytes())
    (replaced,) = merge([str(SHARED)], into)
    assert replaced.action == "replaced" and "smaller" in replaced.detail
    assert replaced.path.read_bytes() == SHARED.read_bytes()


def test_a_fixture_that_replaces_another_takes_over_its_statement_and_ranges(tmp_path):
    source = FINDINGS / "httpx-sse" / "httpx-sse--event_lost--bom.json"
    kept = load(source)
    assert kept.statement and kept.history["httpx-sse"]["tested"]["0.4.3"] == "fails"
    # As a night's run writes them: no statement, no range.
    raw = dataclasses.replace(kept, statement="", history={})
    into = tmp_path / "corpus"
    bloated(source, into / "httpx-sse" / "bom.json")
    write_atomic(tmp_path / "night" / "smaller.json", dumps(raw))
    (replaced,) = merge([str(tmp_path / "night")], into)
    assert replaced.action == "replaced"
    now = load(replaced.path)
    assert now.case == raw.case and (now.statement, now.history) == (kept.statement, kept.history)
    # One with fewer features replaces the other: the same again.
    general = dataclasses.replace(raw, case=dataclasses.replace(raw.case, features=("done", "lf", "openai")),
                                  found={**raw.found, "signature": "httpx-sse/event_lost/plain"})
    write_atomic(tmp_path / "general" / "plain.json", dumps(general))
    done = {m.action: m for m in merge([str(tmp_path / "general")], into)}
    assert set(done) == {"removed", "added"} and not replaced.path.exists()
    now = load(done["added"].path)
    assert now.case == general.case and (now.statement, now.history) == (kept.statement, kept.history)
    # A statement of its own is never overwritten.
    bloated(done["added"].path, done["added"].path)
    write_atomic(tmp_path / "own" / "plain.json", dumps(dataclasses.replace(general, statement="its own words")))
    (again,) = merge([str(tmp_path / "own")], into)
    assert again.action == "replaced" and load(again.path).statement == "its own words"
    assert load(again.path).history == kept.history


def test_a_fixture_folded_into_its_root_cause_leaves_its_statement_there_when_that_one_has_none(tmp_path):
    source = FINDINGS / "httpx-sse" / "httpx-sse--event_lost--bom.json"
    hand = load(source)
    # A night's more general fixture of the same root cause, without a statement, is there first.
    general = dataclasses.replace(hand, statement="", history={}, case=dataclasses.replace(
        hand.case, features=("done", "lf", "openai")), found={**hand.found, "signature": "httpx-sse/event_lost/plain"})
    into = tmp_path / "corpus"
    write_atomic(into / "httpx-sse" / "plain.json", dumps(general))
    shutil.copy(source, tmp_path / "hand.json")
    (folded,) = merge([str(tmp_path / "hand.json")], into)
    assert (folded.action, folded.path) == ("folded", into / "httpx-sse" / "plain.json")
    assert folded.detail == "into httpx-sse/event_lost/plain, its statement carried over"
    now = load(folded.path)
    assert now.statement == hand.statement and now.case == general.case and now.history == {}
    # One that has a statement keeps its own.
    write_atomic(tmp_path / "other.json", dumps(dataclasses.replace(hand, statement="other words")))
    (again,) = merge([str(tmp_path / "other.json")], into)
    assert again.action == "folded" and load(folded.path).statement == hand.statement


def test_a_fixture_merge_folds_or_removes_is_kept_as_a_variant_with_its_statement_case_and_signature(tmp_path):
    source = FINDINGS / "httpx-sse" / "httpx-sse--event_lost--bom.json"
    hand = load(source)
    general = dataclasses.replace(hand, statement="", history={}, case=dataclasses.replace(
        hand.case, features=("done", "lf", "openai")), found={**hand.found, "signature": "httpx-sse/event_lost/plain"})
    into = tmp_path / "corpus"
    write_atomic(into / "httpx-sse" / "plain.json", dumps(general))
    shutil.copy(source, tmp_path / "hand.json")
    (folded,) = merge([str(tmp_path / "hand.json")], into)
    assert folded.action == "folded"
    (variant,) = load(folded.path).variants
    assert (variant.signature, variant.statement, variant.case, variant.name) == (
        "httpx-sse/event_lost/bom", hand.statement, hand.case, hand.name)
    # Merged again, nothing changes: one variant per signature.
    before = folded.path.read_bytes()
    merge([str(tmp_path / "hand.json")], into)
    assert folded.path.read_bytes() == before
    # A more general fixture removes the one there: the removed file's fixture is kept in it as a variant.
    again = tmp_path / "again"
    write_atomic(again / "httpx-sse" / "bom.json", source.read_bytes())
    write_atomic(tmp_path / "night" / "plain.json", dumps(general))
    done = {m.action: m for m in merge([str(tmp_path / "night")], again)}
    assert set(done) == {"removed", "added"} and not (again / "httpx-sse" / "bom.json").exists()
    (variant,) = load(done["added"].path).variants
    assert (variant.signature, variant.statement, variant.case) == ("httpx-sse/event_lost/bom", hand.statement,
                                                                    hand.case)
    # A smaller fixture of the same signature replacing that one keeps its variants too.
    bloated(done["added"].path, done["added"].path)
    (replaced,) = merge([str(tmp_path / "night")], again)
    assert replaced.action == "replaced" and load(replaced.path).case == general.case
    assert [v.signature for v in load(replaced.path).variants] == ["httpx-sse/event_lost/bom"]


def test_a_fixture_written_before_variants_loads_and_one_with_a_bad_variant_names_the_field(tmp_path):
    old = FINDINGS / "httpx-sse" / "httpx-sse--event_lost--bom.json"
    assert "variants" not in json.loads(old.read_text(encoding="utf-8")) and load(old).variants == ()
    doc = json.loads(old.read_text(encoding="utf-8"))
    doc["variants"] = [{"signature": "x/y/z", "case": {"wire": {"encoding": "utf-8", "lines": [], "cuts": [3]},
                                                       "expected": {"calls": []}}}]
    with pytest.raises(FixtureError, match=r": variants\[0\]\.case\.wire\.cuts\[0\]: offset 3 is outside 0\.\.0"):
        loads(json.dumps(doc), "f.json")


def test_a_file_given_alone_goes_where_a_run_would_put_it(tmp_path):
    (done,) = merge([str(SHARED)], tmp_path / "into")
    assert done.path == tmp_path / "into" / SHARED.relative_to(FINDINGS)
    (seed,) = merge([str(SEED / "cut-inside-string.json")], tmp_path / "into")
    assert seed.path == tmp_path / "into" / "cut-inside-string.json"


def test_among_incoming_duplicates_the_smallest_wins(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    bloated(SHARED, a / "x.json")
    b.mkdir()
    shutil.copy(SHARED, b / "y.json")
    done = merge([str(a), str(b)], tmp_path / "into")
    assert [m.action for m in done] == ["added", "replaced"]
    assert done[1].path.read_bytes() == SHARED.read_bytes()


def test_a_bad_input_stops_the_merge_before_anything_is_written(tmp_path):
    src = copy_tree(FINDINGS / "selftest-key-by-id", tmp_path / "src")
    (src / "zz-broken.json").write_text('{"format": "toolfuzz-fixture/1", "name": 3}')
    with pytest.raises(UsageError, match="zz-broken.json: name: must be a string"):
        merge([str(src)], tmp_path / "into")
    assert not (tmp_path / "into").exists()


# -- minimize ----------------------------------------------------------------

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


def test_a_fixture_its_target_now_passes_is_reported_fixed_and_one_with_nothing_recorded_skipped(tmp_path):
    fixed = recording(SEED / "two-calls-interleaved.json", tmp_path / "fixed.json",
                      {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on", "version": "0.9"}})
    shutil.copy(SEED / "cut-inside-string.json", tmp_path / "seed.json")
    results = {r.path.name: r for r in minimize([str(tmp_path)])}
    assert results["fixed.json"].action == "fixed"
    assert results["fixed.json"].detail == f"fixed in {HAND_OUT} (unversioned) (recorded on 0.9)"
    assert results["seed.json"].action == "skipped"
    assert fixed.read_bytes() == recording(SEED / "two-calls-interleaved.json", tmp_path / "again.json",
                                           {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on",
                                                       "version": "0.9"}}).read_bytes()


# -- check -------------------------------------------------------------------

def test_check_sorts_recorded_cells_and_passes_when_the_mutants_still_fail():
    result = check([str(FINDINGS / "selftest-key-by-id"), str(SEED)])
    assert result.exit_code == 0
    assert len(result.classes["still failing"]) == 2
    assert not result.classes["reference disagrees"] and not result.classes["new"]


def test_a_library_that_fixed_its_bug_is_reported_fixed_in_its_version_and_does_not_fail(tmp_path):
    path = recording(SEED / "two-calls-interleaved.json", tmp_path / "lib.json",
                     {"somelib": {"verdict": "diverges", "kind": "call_lost", "version": "1.0"}})
    plain = Target(name="somelib", fn=PLAIN.fn, version="2.0")
    result = check([str(path)], [plain])
    (cell,) = result.classes["fixed"]
    assert result.exit_code == 0
    assert result.to_json()["classes"]["fixed"][0]["fixed_in"] == "fixed in somelib 2.0 (recorded on 1.0)"
    assert cell.target == "somelib"


def test_a_self_test_fixture_that_passes_fails_the_check(tmp_path):
    path = recording(SEED / "two-calls-interleaved.json", tmp_path / "mutant.json",
                     {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on"}})
    result = check([str(path)])
    assert result.exit_code == 1 and len(result.classes["must fail, passes"]) == 1


def test_a_fixture_the_reference_disagrees_with_fails_the_check_and_a_new_divergence_does_not(tmp_path):
    doc = json.loads((SEED / "two-calls-interleaved.json").read_text(encoding="utf-8"))
    doc["expected"]["calls"][0]["arguments"] += " "
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert check([str(bad)]).exit_code == 1
    lost = Target(name="loses-everything", fn=lambda chunks: [])
    result = check([str(SEED / "two-calls-interleaved.json")], [lost])
    assert result.exit_code == 0 and [c.kind for c in result.classes["new"]] == ["call_lost"]
