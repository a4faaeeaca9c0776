"""The execution boundary: only complete calls, and only those the caller's hook authorises."""

import pytest

from toolfuzz.vocabulary import STATUSES, Call, Outcome
from toolfuzz.targets.reference.gate import releasable


def outcome_with_every_status():
    return Outcome(tuple(Call(0, i, f"id{i}", "run_shell", "{}", s) for i, s in enumerate(STATUSES)))


def test_only_complete_calls_reach_the_hook_and_only_approved_ones_pass():
    asked = []

    def authorise(call):
        asked.append(call.status)
        return True

    passed = releasable(outcome_with_every_status(), authorise)
    assert [c.status for c in passed] == ["complete"]
    assert asked == ["complete"]


def test_a_right_name_authorises_nothing_by_itself():
    assert releasable(outcome_with_every_status(), lambda call: False) == []


def test_only_true_itself_authorises():
    assert releasable(outcome_with_every_status(), lambda call: "yes") == []


def test_there_is_no_default_hook():
    with pytest.raises(TypeError):
        releasable(outcome_with_every_status(), None)
