"""A fixture as a person reads it (toolfuzz.outputs.timeline): what ``toolfuzz show`` prints and the report opens to."""

import dataclasses

from toolfuzz.corpus.fixtures import Variant, load
from toolfuzz.outputs.timeline import render
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"


def test_the_timeline_gives_every_field_each_fragment_carried_before_what_the_reference_made_of_it():
    # The id comes only on the second fragment: what a no-first-id finding is about.
    lines = render(load(FINDINGS / "selftest-shared-placeholder" / "id_differs--no-first-id.json")).splitlines()
    first = lines.index('    choice 0 fragment {"index":0,"type":"function","function":{"name":"get_time","arguments":""}}')
    assert lines[first + 1] == "    choice 0 call 0 opened  id=None  name=get_time"
    assert lines[first + 2] == '    choice 0 fragment {"index":0,"id":"call_1","function":{"arguments":"{}"}}'
    anthropic = render(load(FINDINGS / "seed-anthropic" / "cut-after-backslash.json")).splitlines()
    assert ('    content_block_start {"index":1,"content_block":{"type":"tool_use","id":"toolu_q","name":"say",'
            '"input":{}}}') in anthropic


def test_the_timeline_names_the_variants_corpus_merge_folded_into_a_fixture():
    fixture = load(SEED / "read-splits-multibyte.json")
    folded = Variant("mine:assemble/arguments_differ/multi-read", fixture.case, "mine: arguments_differ")
    lines = render(dataclasses.replace(fixture, variants=(folded,))).splitlines()
    assert "variants folded in by corpus merge: mine:assemble/arguments_differ/multi-read" in lines
