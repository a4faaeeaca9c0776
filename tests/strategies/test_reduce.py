"""The edits of a plan: biggest first, each one changing the plan, each one rendering."""

from __future__ import annotations

import pytest

from toolfuzz.strategies.cases import Planner
from toolfuzz.strategies.reduce import (Cut, Cutoff, DecisionOut, Drop, Lower, Shift, Smaller, StageOut, Swap, apply,
                                        edits, lowerings, redraws, shifts, swaps)


PLAN = {("chat:0", 0): 1, ("chat:0", "choice:0", 0): 7, ("chat:0", "choice:0", "call:1", 0): 2,
        ("chat:0", "choice:0", "call:2", 3): "abcd", ("chat:0", "framings:0", 1): True}


def test_the_biggest_stage_comes_first_and_takes_all_its_decisions_out():
    first = next(iter(edits(PLAN)))
    assert first == StageOut(("chat:0",)) and apply(first, PLAN) == {}
    assert apply(StageOut(("chat:0", "choice:0")), PLAN) == {("chat:0", 0): 1, ("chat:0", "framings:0", 1): True}


def test_dropping_a_call_moves_the_later_ones_up():
    dropped = apply(Drop(("chat:0", "choice:0", "call:1")), PLAN)
    assert dropped == {("chat:0", 0): 1, ("chat:0", "choice:0", 0): 7, ("chat:0", "choice:0", "call:1", 3): "abcd",
                       ("chat:0", "framings:0", 1): True}
    # The last one has nothing after it to move: that is a stage edit, not a drop.
    assert apply(Drop(("chat:0", "choice:0", "call:2")), PLAN) is None


def test_a_call_drawn_plain_before_one_the_bug_needs_is_dropped_too():
    # call:0 holds no decision (drawn plain), so no edit names it; dropping it moves call:1 and call:2 up.
    assert Drop(("chat:0", "choice:0", "call:0")) in list(edits(PLAN))
    dropped = apply(Drop(("chat:0", "choice:0", "call:0")), PLAN)
    assert dropped == {("chat:0", 0): 1, ("chat:0", "choice:0", 0): 7, ("chat:0", "choice:0", "call:0", 0): 2,
                       ("chat:0", "choice:0", "call:1", 3): "abcd", ("chat:0", "framings:0", 1): True}
    # Only the plain ones before: a stage with decisions has its own drop edit, yielded once.
    drops = [e for e in edits(PLAN) if isinstance(e, Drop)]
    assert len(drops) == len(set(drops))


def test_an_edit_that_changes_nothing_is_none():
    assert apply(DecisionOut(("nowhere", 0)), PLAN) is None
    assert apply(StageOut(("nowhere",)), PLAN) is None
    assert apply(Smaller(("chat:0", 0)), PLAN) is None  # 1 halves to 0: that is the decision edit


def test_values_get_smaller_and_small_picks_lower():
    assert apply(Smaller(("chat:0", "choice:0", "call:2", 3)), PLAN)[("chat:0", "choice:0", "call:2", 3)] == "ab"
    lowered = [e for e in lowerings(PLAN)]
    assert Lower(("chat:0", "choice:0", 0), 1) in lowered and len([e for e in lowered if e.key[-1] == 0 and len(e.key) == 3]) == 6
    redraw = next(e for e in redraws(PLAN) if e.key == ("chat:0", "choice:0", 0))
    assert apply(redraw, PLAN) == {("chat:0", 0): 1, ("chat:0", "choice:0", 0): 1, ("chat:0", "framings:0", 1): True}


def test_every_edit_of_a_drawn_plan_renders():
    planner = Planner()
    plan = planner.draw(4).plan
    rendered = 0
    for edit in [*edits(plan), *lowerings(plan)][:200]:
        candidate = apply(edit, plan)
        if candidate is not None:
            planner.render(candidate)
            rendered += 1
    assert rendered > 20


ENDED = {("cases:0", "profile_sets:0", 3): 5, ("cases:0", "choice:0", "finish_reasons:0", 0): 9,
         ("cases:0", "choice:1", "call:0", 0): 4, ("cases:0", "stream_endings:0", 0): 7}


def test_a_swap_trades_every_ending_for_one_choice_finishing_for_length():
    assert [e for e in swaps(ENDED)] == [Swap(("cases:0", "choice:0")), Swap(("cases:0", "choice:1")),
                                         Cutoff(("cases:0",))]
    swapped = apply(Swap(("cases:0", "choice:1")), ENDED)
    assert swapped == {("cases:0", "profile_sets:0", 3): 5, ("cases:0", "choice:1", "call:0", 0): 4,
                       ("cases:0", "choice:1", "finish_reasons:0", 0): 8}
    # Endings that are already no more than `length` are not swapped again: swaps never go round.
    assert apply(Swap(("cases:0", "choice:0")), swapped) is None
    assert apply(Swap(("cases:0", "choice:0")), {("cases:0", "choice:0", 0): 3}) is None


def test_a_swap_renders_one_choice_finishing_for_length_and_nothing_else_unfinished():
    planner = Planner(profiles=["openai"])
    ended = next(c for c in map(planner.draw, range(2000)) if {"disconnect", "error-event"} & set(c.features))
    swapped = planner.render(apply(Swap(("cases:0", "choice:0")), ended.plan))
    assert "length" in swapped.features and not {"disconnect", "error-event", "error-chunk"} & set(swapped.features)


def test_a_cutoff_trades_every_ending_for_the_plainest_disconnect_unless_it_is_length():
    cut = apply(Cutoff(("cases:0",)), {**ENDED, ("cases:0", "disconnects:0", 0): 2})
    assert cut == {("cases:0", "profile_sets:0", 3): 5, ("cases:0", "choice:1", "call:0", 0): 4,
                   ("cases:0", "stream_endings:0", 0): 6}
    assert apply(Cutoff(("cases:0",)), cut) is None  # already the plainest disconnect
    length = apply(Swap(("cases:0", "choice:0")), ENDED)
    assert apply(Cutoff(("cases:0",)), length) is None  # length is plainer still
    assert apply(Cutoff(("cases:0",)), {("cases:0", "choice:0", 0): 3}) is None  # a clean end stays one


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "anthropic"])
def test_a_cutoff_renders_every_call_streamed_none_finished_and_no_event_cut(dialect):
    planner = Planner(dialect=dialect)
    unfinished = ({"disconnect", "error-event", "error-chunk", "no-done", "length", "failed"}, {"disconnect"})
    cut = 0
    for case in map(planner.draw, range(300)):
        plan = apply(Cutoff((next(iter(case.plan))[0],)), case.plan)
        # A message whole in message_start has its calls and its finish in one event: no cut falls between.
        if plan is None or not case.expected.calls or "whole-message-start" in case.features:
            continue
        rendered = planner.render(plan)
        assert unfinished[0] & set(rendered.features) == unfinished[1]
        assert "disconnect-mid-arguments" not in rendered.features
        assert all(call.status == "incomplete" for call in rendered.expected.calls)
        cut += 1
    assert cut > 50


def test_a_shift_moves_a_profile_to_each_place_before_it():
    assert [e for e in shifts(ENDED)] == [Shift(("cases:0", "profile_sets:0", 3), i) for i in range(3)]
    assert apply(Shift(("cases:0", "profile_sets:0", 3), 1), ENDED) == {**{k: v for k, v in ENDED.items()
                                                                              if k[1] != "profile_sets:0"},
                                                                           ("cases:0", "profile_sets:0", 1): 5}
    taken = {**ENDED, ("cases:0", "profile_sets:0", 1): 5}
    assert apply(Shift(("cases:0", "profile_sets:0", 3), 1), taken) is None


def test_a_text_also_loses_its_first_half_and_a_short_one_each_character():
    key = ("call:0", "strings:0", 3)
    cuts = [e for e in edits({key: "ab\\u"}) if isinstance(e, Cut)]
    assert cuts == [Cut(key, 0, 2), *[Cut(key, i, i + 1) for i in range(4)]]
    assert apply(Cut(key, 0, 2), {key: "ab\\u"}) == {key: "\\u"}
    assert apply(Cut(key, 3, 4), {key: "ab\\u"}) == {key: "ab\\"}
    assert apply(Cut(key, 3, 9), {key: "ab"}) is None
    long = "x" * 40
    assert [e for e in edits({key: long}) if isinstance(e, Cut)] == [Cut(key, 0, 20)]
