"""toolfuzz.severity: every kind graded by its harm and its rule's source, and the grade table itself."""

from __future__ import annotations

import pytest

from toolfuzz.judge.compare import KINDS
from toolfuzz.kinds import HARM, RULES
from toolfuzz.severity import HARMFUL, Evidence, Harm, Severity, Source, grade


def test_every_kind_the_judge_reports_has_a_harm_and_a_rule_with_its_source():
    assert set(HARM) == set(KINDS) == set(RULES)
    assert all(rule.cite for rule in RULES.values())


@pytest.mark.parametrize("harm", sorted(HARMFUL, key=lambda h: h.value))
def test_harm_on_shapes_the_target_reads_by_a_rule_with_a_source_is_a_bug(harm):
    assert grade(harm, Evidence.DOCUMENTED, grounded=True) is Severity.BUG
    assert grade(harm, Evidence.OBSERVED, grounded=True) is Severity.BUG


@pytest.mark.parametrize("evidence", [Evidence.ELSEWHERE, Evidence.INFERRED])
def test_harm_on_shapes_no_server_the_target_reads_is_known_to_send_is_robustness(evidence):
    assert grade(Harm.LOST, evidence, grounded=True) is Severity.ROBUSTNESS


def test_a_rule_that_is_the_project_s_own_choice_never_makes_a_bug_on_its_own():
    assert grade(Harm.CORRUPTED, Evidence.DOCUMENTED, grounded=False) is Severity.ROBUSTNESS


@pytest.mark.parametrize("harm", [Harm.LABEL, Harm.HARNESS])
def test_a_label_or_the_harness_s_own_difference_is_a_note_whatever_the_evidence(harm):
    assert grade(harm, Evidence.DOCUMENTED, grounded=True) is Severity.NOTE


def test_the_kinds_that_lose_nothing_are_labels_and_the_ones_that_hand_on_unfinished_calls_are_unsafe():
    assert HARM["reserialised"] is Harm.LABEL and HARM["event_id_differs"] is Harm.LABEL
    assert HARM["incomplete_handed_on"] is Harm.UNSAFE
    assert HARM["call_lost"] is Harm.LOST and HARM["raised"] is Harm.CRASH
    # The partial level's own rules are the project's, as docs/contract.md 9 says; the final value is RFC 8259's.
    assert RULES["invented_key"].source is Source.CHOICE and RULES["final_differs"].source is Source.SPEC


def test_severities_order_gravest_first_and_parse_from_their_names():
    assert [s.value for s in sorted(Severity, key=lambda s: s.rank)] == ["bug", "robustness", "note"]
    assert Severity.BUG.at_least(Severity.ROBUSTNESS) and not Severity.NOTE.at_least(Severity.ROBUSTNESS)
    assert Severity.parse("note") is Severity.NOTE
    with pytest.raises(ValueError, match="one of bug, robustness, note"):
        Severity.parse("critical")
