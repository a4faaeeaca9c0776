"""Findings on disk (harness/corpus/findings.py): readable names, one file per signature, the smallest kept."""

from __future__ import annotations

import re
from dataclasses import replace


from toolfuzz.identity import CrashState
from toolfuzz.judge.compare import Divergence
from toolfuzz.corpus.findings import path_for, save, target_folder
from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.observation import Observation
from toolfuzz.engine.events import Finding, signature_of
from toolfuzz.targets.selftest import SELFTEST
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
MUTANT = SELFTEST[0]


def finding(name: str, features=("openai", "interleaved")) -> Finding:
    case = load(SEED / f"{name}.json").case
    case = type(case)(reads=case.reads, expected=case.expected, tools=case.tools, features=tuple(features))
    return Finding(MUTANT, Divergence("arguments_misattributed", "detail"), case, Observation(), frozenset({"openai"}))


def test_the_path_says_target_kind_and_the_features_that_matter(tmp_path):
    path = path_for(tmp_path, finding("two-calls-interleaved"))
    assert path == tmp_path / MUTANT.name / "arguments_misattributed--interleaved.json"
    assert path_for(tmp_path, finding("two-calls-interleaved", features=("openai",))).name == \
        "arguments_misattributed--plain.json"


def raising(state: CrashState | None) -> Finding:
    found = finding("two-calls-interleaved")
    return replace(found, divergence=Divergence("raised", "KeyError: 'x'", state))


def test_a_raise_is_named_by_its_type_and_a_digest_of_where_so_two_places_are_two_files(tmp_path):
    here = path_for(tmp_path, raising(CrashState("KeyError", ("lib.find", "lib.loop"))))
    there = path_for(tmp_path, raising(CrashState("KeyError", ("lib.other", "lib.loop"))))
    assert re.fullmatch(r"raised--KeyError-[0-9a-f]{8}--interleaved\.json", here.name) and here != there
    # A state that names no frame (a program's own type, say) is its type alone.
    assert path_for(tmp_path, raising(CrashState("KeyError"))).name == "raised--KeyError--interleaved.json"


def test_a_target_folder_is_its_name_where_safe_and_never_shared_or_outside_the_root():
    assert target_folder("selftest-key-by-id") == "selftest-key-by-id"
    assert target_folder("qwen3@sglang") == "qwen3@sglang"
    names = ["a/b.py:f", "a-b.py-f", "a:b.py:f", "mypkg.mod:assemble", "other.mod:assemble", "..", ".", "", "x" * 300]
    folders = [target_folder(n) for n in names]
    assert len(set(folders)) == len(names)
    for folder in folders:
        assert re.fullmatch(r"[A-Za-z0-9_+@-][A-Za-z0-9._+@-]{0,79}", folder), folder


def test_signatures_ignore_order_and_plain_features():
    f = finding("two-calls-interleaved", features=("interleaved", "openai", "crlf"))
    assert f.signature == signature_of(MUTANT.name, "arguments_misattributed", ["crlf", "interleaved"])
    assert f.signature == f"{MUTANT.name}/arguments_misattributed/crlf+interleaved"


def test_a_smaller_finding_replaces_a_larger_one_and_not_the_other_way(tmp_path):
    big = finding("two-calls-interleaved")
    small = Finding(big.target, big.divergence, type(big.case)(
        reads=(big.case.wire,), expected=big.case.expected, tools=big.case.tools, features=big.case.features),
        big.observation, big.plain)
    split = Finding(big.target, big.divergence, type(big.case)(
        reads=(big.case.wire[:10], big.case.wire[10:]), expected=big.case.expected, tools=big.case.tools,
        features=big.case.features), big.observation, big.plain)
    path, what = save(tmp_path, replace(split, seed=1))
    assert what == "written" and len(load(path).case.reads) == 2
    assert save(tmp_path, replace(small, seed=2)) == (path, "written")
    assert len(load(path).case.reads) == 1
    assert save(tmp_path, replace(split, seed=3)) == (path, "kept")
    assert load(path).found["seed"] == 2


def test_the_fixture_records_what_the_target_observed_and_how_it_was_found(tmp_path):
    path, _ = save(tmp_path, replace(finding("two-calls-interleaved"), seed=5))
    fx = load(path)
    seen = fx.observed[MUTANT.name]
    assert seen["verdict"] == "diverges" and seen["kind"] == "arguments_misattributed"
    assert fx.found["by"] == "toolfuzz run" and fx.found["seed"] == 5 and fx.found["toolfuzz"]
    assert fx.found["signature"] == f"{MUTANT.name}/arguments_misattributed/interleaved"


def test_an_unreadable_old_file_is_replaced(tmp_path):
    f = finding("two-calls-interleaved")
    path = path_for(tmp_path, f)
    path.parent.mkdir(parents=True)
    path.write_text("{ not json")
    assert save(tmp_path, replace(f, seed=1)) == (path, "written")
    assert load(path).name


def test_the_writer_saves_every_found_finding_and_says_where(tmp_path):
    from toolfuzz.corpus.findings import FindingWriter
    from toolfuzz.engine.events import Found, Note

    writer = FindingWriter(tmp_path)
    one = finding("two-calls-interleaved")
    big = replace(one, case=replace(one.case, reads=(one.case.wire[:10], one.case.wire[10:])), seed=1)
    small = replace(one, case=replace(one.case, reads=(one.case.wire,)), seed=2)
    for event in (Note("not a finding"), Found(big), Found(small), Found(big)):
        writer(event)
    path = path_for(tmp_path, big)
    assert [(f.seed, p, what) for f, p, what in writer.saved] == [(1, path, "written"), (2, path, "written"),
                                                                  (1, path, "kept")]
    assert writer.where(big) == (path, "kept") and load(path).found["seed"] == 2
