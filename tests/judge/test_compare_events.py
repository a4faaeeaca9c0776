"""The sse level's comparison: the kinds, their order and precedence, and the events it compares with.

The reference decoder stands in for construction when a case carries no
events (old fixtures, ``toolfuzz assemble``); the property test here is what
entitles it to: over every framing and read cut the strategies make, and
over other cuts of the same wire, it dispatches exactly the events known by
construction.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolfuzz.judge.compare import KINDS, compare
from toolfuzz.judge.compare_events import SSE_KINDS, compare_events, expected_events
from toolfuzz.vocabulary import Case, Outcome, SSEEvent
from toolfuzz.judge.observation import Observation
from toolfuzz.strategies import cases
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.base import Target

A, B, C = SSEEvent("a"), SSEEvent("b"), SSEEvent("c")
SSE_TARGET = Target(name="decoder", fn=lambda reads: [], level="sse")
#: The framing variants the property test must have met (strategies/framing.py names them).
FRAMINGS = {"lf", "crlf", "cr", "bom", "no-space", "comments", "sse-fields", "multiline-data", "unterminated-event"}


def kinds(expected, observed, ids=True):
    return [k for k, _ in compare_events(tuple(expected), tuple(observed), ids)]


def test_agreement_is_no_divergence():
    assert kinds([A, B], [A, B]) == []
    assert kinds([], []) == []


def test_event_lost_when_one_is_missing_and_the_rest_still_pair():
    assert kinds([A, B, C], [B, C]) == ["event_lost"]
    assert kinds([A, B, C], [A, C]) == ["event_lost"]


def test_phantom_event_when_one_was_never_dispatched():
    assert kinds([A, B], [A, SSEEvent(""), B]) == ["phantom_event"]
    assert kinds([A], [A, B]) == ["phantom_event"]


def test_data_differs_in_the_same_place_not_lost_and_phantom():
    assert kinds([A, B], [A, SSEEvent("b\n")]) == ["data_differs"]


def test_event_type_differs_on_events_that_pair():
    assert kinds([SSEEvent("a", "error")], [A]) == ["event_type_differs"]


def test_event_id_differs_on_events_that_pair():
    assert kinds([SSEEvent("a", id="7"), SSEEvent("b", id="7")], [SSEEvent("a", id="7"), B]) == ["event_id_differs"]


def test_ids_are_not_judged_for_a_target_that_does_not_claim_them():
    assert kinds([SSEEvent("a", id="7")], [A], ids=False) == []


def test_each_kind_once_and_in_the_listed_order():
    expected = [SSEEvent("a", "x", "1"), SSEEvent("b", "y", "1"), SSEEvent("c", "z", "1")]
    observed = [SSEEvent("a"), SSEEvent("b"), SSEEvent("C", "z", "1")]
    assert kinds(expected, observed) == ["data_differs", "event_type_differs", "event_id_differs"]


def test_lost_and_phantom_events_hide_the_differences_that_follow_from_them():
    assert kinds([SSEEvent("a", "error"), B], [A]) == ["event_lost"]
    assert kinds([A, B], [SSEEvent("x"), SSEEvent("a", "error"), B]) == ["phantom_event"]


def test_the_details_say_which_event_and_what():
    [(kind, detail)] = compare_events((A, SSEEvent("b", "error")), (A,))
    assert kind == "event_lost" and "event 1" in detail and "'error'" in detail


def test_a_data_that_differs_far_in_is_shown_where_it_differs():
    head = '{"id":"chatcmpl-toolfuzz","object":"chat.completion.chunk","created":1700000000,"choices":'
    expected, got = SSEEvent(head + '[{"location":"\u2029"}]'), SSEEvent(head + '[{"location":"')
    [(kind, detail)] = compare_events((expected,), (got,))
    at = len(head) + len('[{"location":"')
    assert kind == "data_differs"
    assert detail == (f"event 0: from character {at}: expected data {expected.data[at - 30:at + 50]!r}, "
                      f"got {got.data[at - 30:at + 50]!r}")
    # An invisible separator is shown escaped.
    assert "\\u2029" in detail
    [(_, short)] = compare_events((SSEEvent("ab"),), (SSEEvent("ac"),))
    assert short == "event 0: expected data 'ab', got 'ac'"


def test_every_sse_kind_has_a_test_here():
    tested = {name[len("test_"):] for name in globals() if name.startswith("test_")}
    assert all(any(t.startswith(k) for t in tested) for k in SSE_KINDS)


def test_the_sse_kinds_follow_the_call_kinds_in_the_shared_table():
    from toolfuzz.judge.compare_partial import PARTIAL_KINDS
    from toolfuzz.judge.compare_producer import PRODUCER_KINDS
    # Then the partial level's, then the producer level's, last.
    after = len(PARTIAL_KINDS) + len(PRODUCER_KINDS)
    assert list(KINDS)[-len(SSE_KINDS) - after:-after] == list(SSE_KINDS)
    assert list(KINDS)[-len(PRODUCER_KINDS):] == list(PRODUCER_KINDS)
    assert all(KINDS[k] == SSE_KINDS[k] for k in SSE_KINDS)


def test_compare_hands_sse_targets_to_the_event_comparison():
    observed = Observation(events=(B,))
    assert [d.kind for d in compare(Outcome(), observed, SSE_TARGET, (A, B))] == ["event_lost"]


def test_compare_judges_shared_failures_before_events():
    assert [d.kind for d in compare(Outcome(), Observation(raised="ValueError: x"), SSE_TARGET, (A,))] == ["raised"]
    assert [d.kind for d in compare(Outcome(), Observation(timed_out=True), SSE_TARGET, (A,))] == ["timed_out"]


def test_compare_refuses_an_sse_target_without_expected_events():
    with pytest.raises(ValueError, match="level sse"):
        compare(Outcome(), Observation(events=()), SSE_TARGET)


def test_recorded_events_are_used_as_they_are():
    case = Case(reads=(b"data: a\n\n",), expected=Outcome(), events=(B,))
    assert expected_events(case) == (B,)


def test_without_recorded_events_the_reference_decoder_derives_them():
    case = Case(reads=(b"\xef\xbb", b"\xbfid: 7\r", b"\ndata: a\r\n\r\nevent: e\ndata: b\n"), expected=Outcome())
    assert expected_events(case) == (SSEEvent("a", id="7"),)


def _recut(wire: bytes, cuts: list[int]) -> tuple[bytes, ...]:
    bounds = [0, *sorted(set(cuts)), len(wire)]
    return tuple(wire[a:b] for a, b in zip(bounds, bounds[1:]))


def test_the_reference_decoder_dispatches_the_events_known_by_construction():
    seen: set[str] = set()

    @settings(max_examples=200, suppress_health_check=list(HealthCheck))
    @given(cases(), st.data())
    def check(case, data):
        assert case.events is not None
        seen.update(case.features)
        derived = expected_events(dataclasses.replace(case, events=None))
        assert derived == case.events, f"features {case.features}"
        # Other cuts of the same wire, one byte at a time included, dispatch the same events.
        wire = case.wire
        cuts = data.draw(st.lists(st.integers(0, len(wire)), max_size=12), label="cuts")
        assert expected_events(Case(reads=_recut(wire, cuts), expected=Outcome())) == case.events
        if len(wire) <= 4096:
            assert expected_events(Case(reads=_recut(wire, list(range(len(wire)))), expected=Outcome())) == case.events

    check()
    # Every framing met, whatever Hypothesis's draws came to in this process: the planner's cases of fixed
    # seeds go through the same check, so the cover does not rest on one process's order of tests.
    planner = Planner()
    for seed in range(300):
        case = planner.draw(seed)
        seen.update(case.features)
        assert expected_events(dataclasses.replace(case, events=None)) == case.events, f"seed {seed}"
    assert FRAMINGS <= seen, f"never generated: {sorted(FRAMINGS - seen)}"
