"""strategies/captured.py: cases grown from real captures keep the server's events and are known by construction."""

from __future__ import annotations

from random import Random

import orjson
import pytest

from toolfuzz.corpus.agreement import imported_fixture, manifested
from toolfuzz.corpus.captures import capture_file, capture_paths
from toolfuzz.strategies.captured import captured_case, schema_of, template_of
from toolfuzz.strategies.cases import GROWN_SHARE, Planner
from toolfuzz.strategies.plans import Drawer
from toolfuzz.targets.reference import assemble
from tests.paths import ROOT

CAPTURES = ROOT / "findings" / "captures"


def _captured(paths):
    manifests = manifested(paths)
    out = []
    for path in capture_paths([str(p) for p in paths]):
        for capture in capture_file(path).captures:
            out.append((f"{path.name}#{capture.part}", imported_fixture(capture, manifests.get(path.resolve())).case))
    return out


CAPTURED = _captured([CAPTURES])
TEMPLATES = [t for t in (template_of(o, c) for o, c in CAPTURED) if t is not None]


def test_every_dialect_has_captures_to_grow_from():
    assert {t.dialect for t in TEMPLATES} == {"openai-chat", "openai-responses", "anthropic"} and len(TEMPLATES) > 100


@pytest.mark.parametrize("seed", range(3))
def test_a_grown_case_is_read_by_the_reference_as_it_was_built(seed):
    # The outcome is the capture's, with each call's new text: the reference must read exactly that.
    for template in TEMPLATES:
        case = captured_case.draw(Drawer(rnd=Random(seed)), template)
        assert assemble(case.reads, dialect=case.dialect) == case.expected, template.origin
        assert case.origin == template.origin


def test_the_server_s_own_fields_stay_and_the_arguments_are_drawn_anew():
    # Alibaba's Qwen: continuation entries carry id "", and every chunk a model and a null usage.
    [template] = [t for t in TEMPLATES if t.origin == "alibaba-tool-call.chunks.txt#0"]
    texts = set()
    for seed in range(20):
        case = captured_case.draw(Drawer(rnd=Random(seed)), template)
        chunks = [orjson.loads(e.data) for e in case.events if e.data != "[DONE]"]
        assert all(c["model"] == "qwen3-max" for c in chunks)
        entries = [t for c in chunks for ch in c["choices"] for t in ch["delta"].get("tool_calls") or ()]
        assert entries[0]["id"] == "call_eee11723464a4b9eb8cee71d" and {e["id"] for e in entries[1:]} == {""}
        assert {"captured-alibaba", "empty-id"} <= set(case.features)
        texts.add(case.expected.calls[0].arguments)
    assert len(texts) > 5


def test_more_pieces_than_the_server_sent_fragments_go_in_copies_of_its_last_before_the_finish():
    [template] = [t for t in TEMPLATES if t.origin == "groq-tool-call.chunks.txt#0"]  # the call whole in one entry
    grown = [captured_case.draw(Drawer(rnd=Random(seed)), template) for seed in range(30)]
    case = max(grown, key=lambda c: len(c.events))
    assert len(case.events) > len(template.datas)
    finish = [i for i, e in enumerate(case.events) if '"finish_reason":"tool_calls"' in e.data]
    fragments = [i for i, e in enumerate(case.events) if '"arguments"' in e.data]
    assert finish and max(fragments) <= finish[0]


def test_a_capture_with_no_finished_call_grows_nothing():
    cut = [c for o, c in CAPTURED if o == "incomplete_partial_json_response.txt#0"]
    assert cut and template_of("x", cut[0]) is None


def test_the_schema_of_a_captured_value_keeps_its_keys_and_types():
    assert schema_of({"a": [1], "b": {"c": "x"}, "d": None, "e": True, "f": 1.5}) == {
        "type": "object", "additionalProperties": False, "required": ["a", "b", "d", "e", "f"], "properties": {
            "a": {"type": "array", "items": {"type": "integer"}},
            "b": {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"],
                  "additionalProperties": False},
            "d": {"type": "null"}, "e": {"type": "boolean"}, "f": {"type": "number"}}}


def test_a_planner_given_captures_grows_a_share_of_its_cases_and_renders_each_again_from_its_plan():
    planner = Planner(captured=_captured([CAPTURES / "llm"]))
    cases = [planner.draw(seed) for seed in range(200)]
    grown = [c for c in cases if c.origin]
    assert 200 / GROWN_SHARE / 2 < len(grown) < 200 / GROWN_SHARE * 2
    for case in grown[:10]:
        again = planner.render(case.plan)
        assert again.reads == case.reads and again.origin == case.origin
    # The plainest plan is a generated case: a reduction that takes the origin out asks if the capture is needed.
    assert planner.render({}).origin == ""
