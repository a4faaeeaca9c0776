"""The reference on real captured streams (findings/captures/): each read as its recording's own test reads it."""

from __future__ import annotations

import json
import tomllib

import pytest

from toolfuzz.corpus.captures import read_capture
from toolfuzz.targets.reference import assemble
from tests.paths import ROOT

CAPTURES = ROOT / "findings" / "captures"
MANIFEST = tomllib.loads((CAPTURES / "captures.toml").read_text(encoding="utf-8"))
ENTRIES = {entry["file"]: entry for entry in MANIFEST["capture"]}


def _calls(outcome):
    return [[c.name, json.loads(c.arguments or "{}")] for c in outcome.calls]


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_the_reference_reads_each_capture_as_its_source_test_does(name):
    entry = ENTRIES[name]
    responses = read_capture(CAPTURES / name)
    assert len(responses) == len(entry["calls"]), "responses in the recording"
    for response, expected in zip(responses, entry["calls"]):
        got = assemble([response.wire], dialect=response.dialect)
        assert got.error is None, (response.part, got.error)
        assert _calls(got) == expected, response.part
        assert all(c.status == "complete" for c in got.calls), response.part


@pytest.mark.parametrize("name", sorted(n for n, e in ENTRIES.items() if e["expected_from"] == "server"))
def test_an_expectation_from_the_server_is_what_its_own_final_items_say(name):
    # Responses states each finished item again in response.output_item.done: the expectation is the server's.
    recorded = [json.loads(line) for line in (CAPTURES / name).read_bytes().splitlines() if line.strip()]
    items = [e["item"] for e in recorded if e.get("type") == "response.output_item.done"
             and e["item"].get("type") == "function_call"]
    assert [[[i["name"], json.loads(i["arguments"] or "{}")] for i in items]] == ENTRIES[name]["calls"]


def test_every_capture_in_the_folder_is_in_the_manifest_with_its_provenance():
    files = {str(p.relative_to(CAPTURES)) for p in CAPTURES.rglob("*.chunks.txt")}
    assert files == set(ENTRIES)
    for entry in MANIFEST["capture"]:
        source = MANIFEST["source"][entry["file"].split("/")[0]]
        assert source["repository"] and len(source["commit"]) == 40 and source["licence"]
        assert entry["path"] and entry["shape"]
        assert (CAPTURES / entry["file"].split("/")[0] / "LICENSE").is_file()
