"""The reference on real captured streams (findings/captures/): each read as its recording's own test reads it."""

from __future__ import annotations

import json

import pytest

from toolfuzz.corpus.agreement import agreement, entries
from toolfuzz.outputs.agreement_report import render_agreement_markdown
from tests.paths import ROOT

CAPTURES = ROOT / "findings" / "captures"
VERDICTS = list(agreement([CAPTURES]))


@pytest.mark.parametrize("verdict", VERDICTS, ids=[f"{v.entry.manifest.parent.name}/{v.entry.file}:{v.part}"
                                                   for v in VERDICTS])
def test_the_reference_reads_each_capture_as_its_source_test_does(verdict):
    # Where the contract reads it otherwise (a documented ambiguity), as its manifest says it does instead.
    assert verdict.problem == ""
    assert verdict.agrees, (verdict.expected, verdict.read)


def test_the_corpus_holds_150_responses_from_10_sources_in_every_dialect():
    sources = {v.entry.repository for v in VERDICTS}
    assert len(VERDICTS) >= 150 and len(sources) >= 10
    assert {v.dialect for v in VERDICTS} == {"openai-chat", "openai-responses", "anthropic"}


def test_an_ambiguity_is_one_the_source_test_and_the_reference_really_differ_on():
    ambiguous = [e for e in entries([CAPTURES]) if e.ambiguity]
    assert ambiguous
    for entry in ambiguous:
        assert entry.reads_as and entry.reads_as != entry.responses, entry.file


def test_every_recording_in_a_source_folder_is_in_its_manifest():
    listed = {e.recording for e in entries([CAPTURES])}
    for folder in (p for p in CAPTURES.iterdir() if p.is_dir()):
        files = {p for p in folder.iterdir() if p.name not in ("LICENSE", "captures.toml")}
        assert files <= listed, sorted(str(p) for p in files - listed)


@pytest.mark.parametrize("name", sorted(e.file for e in entries([CAPTURES / "vercel-ai"])
                                        if e.expected_from == "server"))
def test_an_expectation_from_the_server_is_what_its_own_final_items_say(name):
    # Responses states each finished item again in response.output_item.done: the expectation is the server's.
    [entry] = [e for e in entries([CAPTURES / "vercel-ai"]) if e.file == name]
    recorded = [json.loads(line) for line in entry.recording.read_bytes().splitlines() if line.strip()]
    items = [e["item"] for e in recorded if e.get("type") == "response.output_item.done"
             and e["item"].get("type") == "function_call"]
    got = [(i["name"], json.loads(i["arguments"] or "{}"), "complete") for i in items]
    assert got == [c for r in entry.responses for c in r.calls]


def test_the_corpus_readme_shows_the_table_the_command_prints():
    assert render_agreement_markdown(VERDICTS) in (CAPTURES / "README.md").read_text(encoding="utf-8")
