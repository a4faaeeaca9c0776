"""``corpus merge``: one file per root cause, the smallest kept, nothing lost (folded ones kept as variants)."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from toolfuzz.corpus.entries import signature
from toolfuzz.corpus.merge import merge
from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import FixtureError, dumps, iter_fixture_paths, load, loads, write_atomic
from tests.corpus.edited import bloated, copy_tree
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"
SHARED = FINDINGS / "selftest-shared-buffer" / "arguments_misattributed--interleaved+multi-call.json"


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
