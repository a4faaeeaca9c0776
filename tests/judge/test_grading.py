"""toolfuzz.judge.grading: a root cause's severity from its kind, its minimal features and its target's scope."""

from __future__ import annotations

from toolfuzz.judge.grading import grade_of
from toolfuzz.severity import Evidence, Harm, Severity
from toolfuzz.targets.base import Limit, Scope

OPENAI = Scope(servers=frozenset({"openai", "azure"}))
ANY = Scope()


def test_calls_merged_on_a_server_the_target_reads_is_a_bug_and_on_one_it_never_promised_robustness():
    # Ollama puts every call on index 0: litellm reads Ollama, the openai SDK promises OpenAI's API.
    assert grade_of("arguments_misattributed", ["index-zero", "multi-call"], ANY).severity is Severity.BUG
    graded = grade_of("arguments_misattributed", ["index-zero", "multi-call"], OPENAI)
    assert graded.severity is Severity.ROBUSTNESS and graded.evidence is Evidence.ELSEWHERE
    assert graded.shapes[0] == ("index-zero", Evidence.ELSEWHERE)
    assert "index-zero elsewhere" in graded.why


def test_the_case_takes_its_weakest_feature_s_evidence():
    graded = grade_of("call_lost", ["multi-call", "interleaved"], ANY)
    assert graded.evidence is Evidence.INFERRED and graded.severity is Severity.ROBUSTNESS
    assert grade_of("call_lost", ["multi-call"], ANY).severity is Severity.BUG
    assert grade_of("call_lost", [], ANY).evidence is Evidence.DOCUMENTED


def test_a_decoder_that_follows_the_sse_spec_is_held_to_it_and_a_client_to_what_its_servers_send():
    decoder = Scope(specs=frozenset({"sse"}))
    assert grade_of("event_lost", ["bom"], decoder).severity is Severity.BUG
    assert grade_of("event_lost", ["bom"], OPENAI).severity is Severity.ROBUSTNESS


def test_an_outcome_the_project_chose_grounds_no_bug_even_on_a_shape_servers_send():
    # Which of LM Studio's fresh ids is the call's is the project's resolution (first id wins).
    graded = grade_of("id_differs", ["new-id-continuations"], ANY)
    assert graded.evidence is Evidence.OBSERVED and not graded.grounded
    assert graded.severity is Severity.ROBUSTNESS and "the project's own choice" in graded.why
    assert grade_of("arguments_differ", ["utf16-halves"], ANY).severity is Severity.ROBUSTNESS


def test_a_library_that_promises_a_rule_of_the_project_s_is_held_to_it():
    assert grade_of("raised_on_prefix", [], ANY).severity is Severity.ROBUSTNESS
    promised = Scope(promises=frozenset({"raised_on_prefix"}))
    assert grade_of("raised_on_prefix", [], promised).severity is Severity.BUG


def test_labels_are_notes_and_the_grade_says_its_grounds_in_json():
    graded = grade_of("reserialised", ["index-missing"], ANY)
    assert graded.severity is Severity.NOTE and graded.harm is Harm.LABEL
    assert graded.to_json() == {"severity": "note", "harm": "label", "evidence": "observed", "rule": "provider",
                                "grounded": True, "features": {"index-missing": "observed"}}


def test_a_shape_is_read_in_its_own_dialect():
    anthropic = Scope(servers=frozenset({"anthropic"}))
    assert grade_of("call_lost", ["error-event"], anthropic, "anthropic").severity is Severity.BUG
    assert grade_of("call_lost", ["error-event"], OPENAI, "openai-chat").severity is Severity.ROBUSTNESS


def test_what_a_library_documents_for_a_shape_is_never_a_bug_and_the_grade_cites_where_it_says_so():
    skips = Limit(frozenset({"invalid-json"}), frozenset({"call_lost"}), "its docs: such a call 'will be skipped'")
    scope = Scope(limits=(skips,))
    assert grade_of("call_lost", ["invalid-json"], ANY).severity is Severity.BUG
    graded = grade_of("call_lost", ["invalid-json", "multi-call"], scope)
    assert graded.severity is Severity.ROBUSTNESS and graded.limit is skips
    assert "will be skipped" in graded.why and graded.to_json()["documented"] == skips.cite
    # Another kind on the same shape, or the same kind on other shapes, is not what the library documented.
    assert grade_of("arguments_differ", ["invalid-json"], scope).severity is Severity.BUG
    assert grade_of("call_lost", ["multi-call"], scope).severity is Severity.BUG
    # A limit with no kinds covers every kind on its shapes.
    every = Scope(limits=(Limit(frozenset({"content-before"}), cite="a TODO"),))
    assert grade_of("call_lost", ["content-before"], every, "text:pythonic").severity is Severity.ROBUSTNESS


def test_text_after_or_between_a_model_s_calls_and_a_clean_end_before_the_finish_have_the_evidence_they_have():
    # No template renders text after calls; only llama-server is known to end a body cleanly mid-stream.
    assert grade_of("content_differs", ["content-after"], ANY, "text:hermes").severity is Severity.ROBUSTNESS
    assert grade_of("content_differs", ["content-between"], ANY, "text:hermes").severity is Severity.ROBUSTNESS
    assert grade_of("content_differs", ["content-before"], ANY, "text:hermes").severity is Severity.BUG
    assert grade_of("incomplete_handed_on", ["disconnect"], ANY).severity is Severity.BUG
    assert grade_of("incomplete_handed_on", ["disconnect"], OPENAI).severity is Severity.ROBUSTNESS
    assert grade_of("incomplete_handed_on", ["length"], OPENAI).severity is Severity.BUG


def test_two_entries_of_one_call_in_a_chunk_and_white_space_around_the_arguments_are_inferred():
    assert grade_of("arguments_misattributed", ["multi-entry-chunk"], OPENAI).severity is Severity.BUG
    assert grade_of("arguments_misattributed", ["same-call-entries"], OPENAI).severity is Severity.ROBUSTNESS
    assert grade_of("raised", ["padded-json"], ANY).severity is Severity.ROBUSTNESS
    # White space around a JSON text is JSON (RFC 8259): a parser that follows it is held to it.
    assert grade_of("final_differs", ["padded-json"], Scope(specs=frozenset({"json"}))).severity is Severity.BUG


def test_a_capture_from_a_server_shows_that_server_sending_every_shape_it_holds():
    # "interleaved" is inferred: no server is known to send it, until a real OpenAI stream shows it.
    assert grade_of("call_lost", ["interleaved", "multi-call"], OPENAI).severity is Severity.ROBUSTNESS
    captured = grade_of("call_lost", ["captured-openai", "interleaved", "multi-call"], OPENAI)
    assert captured.severity is Severity.BUG and captured.evidence is Evidence.OBSERVED
    # ... from a server the target never promised to read, it is robustness; from nobody named, inferred.
    assert grade_of("call_lost", ["captured-mistral", "interleaved"], OPENAI).evidence is Evidence.ELSEWHERE
    assert grade_of("call_lost", ["captured", "interleaved"], ANY).evidence is Evidence.INFERRED
    # A dialect's documented shape named after its provider ("anthropic") is no capture of it.
    assert grade_of("call_lost", ["anthropic", "interleaved"], ANY).evidence is Evidence.INFERRED


def test_a_capture_the_contract_reads_by_a_choice_of_its_own_grounds_no_bug():
    graded = grade_of("incomplete_handed_on", ["captured-ambiguous", "captured-openai"], OPENAI)
    assert graded.severity is Severity.ROBUSTNESS and not graded.grounded
