"""toolfuzz.outputs.export: file names, what each format holds, and the pytest module with its one plug point."""

from __future__ import annotations

import ast
import json

import pytest

from toolfuzz.outputs.export import MARK_BEGIN, MARK_END, events_of, pytest_module, render, stem_for
from toolfuzz.corpus.fixtures import Fixture, load, loads
from toolfuzz.vocabulary import Call, Case, Outcome
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.base import Target
from toolfuzz.targets.selftest.plain import assemble_chunks
from tests.streams import chunk, frag, head, sse
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"


def calls_as_plain(outcome: Outcome) -> list[dict]:
    """What a correct plain assembler returns for an outcome: every call, complete unless the stream left it open."""
    return [{"choice": c.choice, "index": c.index, "id": c.id, "name": c.name, "arguments": c.arguments,
             "complete": c.status != "incomplete"} for c in outcome.calls]


@pytest.mark.parametrize("name,stem", [
    ("two-calls-interleaved", "two-calls-interleaved"),
    ("selftest-key-by-id: phantom_call", "selftest-key-by-id-phantom_call"),
    ("../../etc/passwd", "etc-passwd"),
    ("café ☕ / 😀", "cafe"),
    ("", "fixture"),
    ("...", "fixture"),
    ("CON", "CON-fixture"),
])
def test_stems_are_safe_file_names(name, stem):
    assert stem_for(name, set()) == stem


def test_stems_are_unique_ignoring_case_and_bounded():
    taken: set[str] = set()
    assert [stem_for(n, taken) for n in ("a", "A", "a", "a-2")] == ["a", "A-2", "a-3", "a-2-2"]
    long = stem_for("x" * 500, set())
    assert len(long) <= 80 and long != stem_for("x" * 499, set())


def test_pytest_stems_are_importable_module_names():
    taken: set[str] = set()
    stems = [stem_for(n, taken, python=True) for n in ("key-by-id: phantom", "Key by id phantom", "3rd")]
    assert stems == ["key_by_id_phantom", "key_by_id_phantom_2", "3rd"]
    assert all(f"test_{s}".isidentifier() for s in stems)


def test_events_are_exactly_what_observe_feeds_an_events_level_target():
    for path in SEED.glob("*.json"):
        case = load(path).case
        seen = []
        observe(Target(name="spy", fn=lambda chunks: seen.append(chunks) or []), case)
        assert events_of(case) == seen[0], path.name


def lone_surrogate_case() -> Case:
    # "😀" split between its UTF-16 halves across two fragments: each chunk holds a lone surrogate.
    wire = sse(chunk(head(0, "c", "say", '{"t": "\\ud83d')), chunk(frag(0, '\\ude00"}')), chunk(finish="tool_calls"))
    expected = Outcome((Call(0, 0, "c", "say", '{"t": "\\ud83d\\ude00"}', "complete"),))
    return Case(reads=(wire,), expected=expected)


def test_json_and_jsonl_of_chunks_with_lone_surrogates_are_utf8_and_round_trip():
    case = lone_surrogate_case()
    fixture = Fixture(case, name="surrogates")
    (jsonl_name, jsonl), = render(fixture, "jsonl", "s")
    (json_name, doc), = render(fixture, "json", "s")
    assert (jsonl_name, json_name) == ("s.jsonl", "s.json")
    chunks = [json.loads(line) for line in jsonl.decode("utf-8").splitlines()]
    assert chunks == events_of(case) == json.loads(doc.decode("utf-8"))["chunks"]
    assert assemble_chunks(chunks) == calls_as_plain(case.expected)


def test_sse_keeps_bytes_that_are_not_utf8_and_the_cuts():
    wire = sse(chunk(head(0, "c", "f", '{"a": 1}')), chunk(finish="tool_calls")) + b"\xff\xfe junk\n"
    case = Case(reads=(wire[:10], wire[10:]), expected=Outcome((Call(0, 0, "c", "f", '{"a": 1}', "complete"),)))
    files = dict(render(Fixture(case, name="x"), "sse", "x"))
    assert sorted(files) == ["x.expected.json", "x.reads.json", "x.sse"]  # no tools, no tools file
    assert files["x.sse"] == wire
    reads = json.loads(files["x.reads.json"])
    assert reads["cuts"] == [10] and reads["bytes"] == len(wire) and reads["replay"] == "toolfuzz assemble x.sse"


@pytest.mark.parametrize("level, argument", [("events", "chunks"), ("bytes", "reads"), ("sse", "reads")])
def test_the_pytest_module_has_one_plug_point_and_judges_with_toolfuzz(level, argument):
    source = pytest_module(level)
    tree = ast.parse(source)
    imports = {a.name if isinstance(node, ast.Import) else f"{node.module}.{a.name}"
               for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    assert imports == {"pathlib.Path", "pytest", "toolfuzz.testing.check_fixture"}
    assert source.count(MARK_BEGIN) == source.count(MARK_END) == 1
    plug = source[source.index(MARK_BEGIN):source.index(MARK_END)]
    assert f'LEVEL = "{level}"' in plug and f"def assemble({argument}):" in plug


@pytest.mark.parametrize("name", ["two calls", "\"\"\"; import os", "\ud800 lone"])
def test_a_case_is_exported_as_the_fixture_itself(name):
    fixture = Fixture(load(SEED / "two-calls-interleaved.json").case, name=name, description="d")
    ((path, data),) = render(fixture, "pytest", "stem")
    assert path == "cases/stem.json" and loads(data).case == fixture.case and loads(data).name == fixture.name
