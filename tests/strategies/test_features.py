"""toolfuzz.strategies.features: every feature the strategies draw has a recorded shape, and its evidence."""

from __future__ import annotations

import json

import pytest

from toolfuzz.severity import Evidence, Source
from toolfuzz.strategies.cases import Planner
from toolfuzz.strategies.features import SHAPES, Shape, sent_by, shape_of
from toolfuzz.vocabulary import DIALECTS, TEXT_DIALECTS


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_feature_a_wire_dialect_draws_has_a_recorded_shape(dialect):
    planner = Planner(dialect=dialect)
    drawn = {f for seed in range(1500) for f in planner.draw(seed).features}
    assert drawn - set(SHAPES) == set()
    # A feature nobody recorded would be taken for inferred: never a bug, without anyone saying so.
    assert all(shape_of(f, dialect).cite != "not recorded (toolfuzz.strategies.features)" for f in drawn)


def test_every_feature_the_producer_level_draws_has_a_recorded_shape():
    planner = Planner(dialects=TEXT_DIALECTS)
    drawn = {f for seed in range(600) for f in planner.draw(seed).features}
    assert drawn and drawn - set(SHAPES) == set()


def test_a_shape_nobody_recorded_is_inferred():
    assert shape_of("made-up-feature").source is Source.INFERRED
    assert shape_of("made-up-feature").evidence(["*"]) is Evidence.INFERRED


def test_evidence_is_what_the_reader_s_servers_and_specs_make_of_a_shape():
    seen = Shape("x", Source.CAPTURE, "cite", seen_from=frozenset({"ollama"}))
    assert seen.evidence(["ollama", "openai"]) is Evidence.OBSERVED
    assert seen.evidence(["openai"]) is Evidence.ELSEWHERE
    assert seen.evidence(["*"]) is Evidence.OBSERVED
    documented = Shape("y", Source.PROVIDER, "cite", documented_by=frozenset({"openai"}))
    assert documented.evidence(["openai"]) is Evidence.DOCUMENTED
    spec = Shape("z", Source.SPEC, "cite", spec="sse")
    assert spec.evidence(["openai"], ["sse"]) is Evidence.DOCUMENTED
    assert spec.evidence(["openai"]) is Evidence.ELSEWHERE
    assert Shape("w", Source.INHERENT, "cite").evidence([]) is Evidence.DOCUMENTED
    assert Shape("v", Source.INFERRED, "cite").evidence(["*"]) is Evidence.INFERRED


def test_a_shape_can_mean_another_thing_in_another_dialect():
    # An SSE error event is Anthropic's documented way to fail a stream; in chat, only OpenRouter's.
    assert shape_of("error-event", "anthropic").evidence(["anthropic"]) is Evidence.DOCUMENTED
    assert shape_of("error-event", "openai-chat").evidence(["openai"]) is Evidence.ELSEWHERE


def test_text_before_a_call_is_inferred_only_for_a_model_whose_template_renders_none():
    # Qwen2.5's template writes a message's content before its <tool_call>; Llama 3.1's writes the bare call.
    assert shape_of("content-before", "text:qwen25").evidence(["*"]) is Evidence.DOCUMENTED
    assert shape_of("content-before", "text:llama3").evidence(["*"]) is Evidence.INFERRED


def test_what_a_server_sends_leaves_out_the_shapes_only_others_were_seen_sending():
    openai = sent_by(["openai"])
    assert {"multi-choice", "usage-chunk", "role-chunk", "read-splits-utf8", "length"} <= openai
    assert not openai & {"bom", "crlf", "comments", "index-missing", "whole-call", "interleaved", "multi-choice-chunk",
                         "disconnect", "same-call-entries", "padded-json"}
    assert "index-missing" in sent_by(["ollama"]) and "comments" in sent_by(["openrouter"])
    # A body that ends cleanly before any finish is llama-server's when its streamed diff fails.
    assert "disconnect" in sent_by(["llama.cpp"])
    # Shapes of the chat dialect alone are not sent in another.
    assert "multi-choice" not in sent_by(["openai"], "anthropic")
    with pytest.raises(ValueError, match="unknown servers"):
        sent_by(["nosuchserver"])


#: A stream cut short (dropped, failed, out of tokens) holds only what arrived; the features name what the server
#: meant to send.
_CUT = {"disconnect", "disconnect-mid-arguments", "error-chunk", "error-event", "length", "content-filter-finish"}


def _whole(planner, seeds):
    return (case for case in map(planner.draw, seeds) if not _CUT & set(case.features))


def _entry_indexes(case):
    """For each chunk's choice that carries several tool_calls entries: their indexes."""
    out = []
    for event in case.events:
        try:
            chunk = json.loads(event.data)
        except ValueError:
            continue
        for choice in chunk.get("choices") or []:
            entries = (choice.get("delta") or {}).get("tool_calls") or []
            if len(entries) > 1:
                out.append([e.get("index") for e in entries])
    return out


def test_entries_of_several_calls_in_a_chunk_and_two_entries_of_one_call_are_told_apart():
    # Only the openai profile: every entry has its call's index, so the wire says which call each belongs to.
    planner = Planner(dialect="openai-chat", profiles=["openai"])
    seen = set()
    for case in _whole(planner, range(1500)):
        groups = _entry_indexes(case)
        several = any(len(set(g)) > 1 for g in groups)
        one = any(len(set(g)) < len(g) for g in groups)
        assert ("multi-entry-chunk" in case.features) == several, case.features
        assert ("same-call-entries" in case.features) == one, case.features
        seen |= {"several"} if several else set()
        seen |= {"one"} if one else set()
    assert seen == {"several", "one"}


def test_white_space_around_a_call_s_arguments_is_a_feature_of_its_own():
    planner = Planner(dialect="openai-chat")
    padded = 0
    for case in _whole(planner, range(600)):
        around = any(c.arguments != c.arguments.strip() for c in case.expected.calls)
        assert ("padded-json" in case.features) == around, case.features
        padded += around
    assert padded
