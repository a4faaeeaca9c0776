"""The edits of a plan: biggest first, each one changing the plan, each one rendering."""

from __future__ import annotations

from toolfuzz.strategies.cases import Planner
from toolfuzz.strategies.reduce import apply, edits, lowerings, redraws


PLAN = {("chat:0", 0): 1, ("chat:0", "choice:0", 0): 7, ("chat:0", "choice:0", "call:1", 0): 2,
        ("chat:0", "choice:0", "call:2", 3): "abcd", ("chat:0", "framings:0", 1): True}


def test_the_biggest_stage_comes_first_and_takes_all_its_decisions_out():
    first = next(iter(edits(PLAN)))
    assert first == ("stage", ("chat:0",)) and apply(first, PLAN) == {}
    assert apply(("stage", ("chat:0", "choice:0")), PLAN) == {("chat:0", 0): 1, ("chat:0", "framings:0", 1): True}


def test_dropping_a_call_moves_the_later_ones_up():
    dropped = apply(("drop", ("chat:0", "choice:0", "call:1")), PLAN)
    assert dropped == {("chat:0", 0): 1, ("chat:0", "choice:0", 0): 7, ("chat:0", "choice:0", "call:1", 3): "abcd",
                       ("chat:0", "framings:0", 1): True}
    # The last one has nothing after it to move: that is a stage edit, not a drop.
    assert apply(("drop", ("chat:0", "choice:0", "call:2")), PLAN) is None


def test_an_edit_that_changes_nothing_is_none():
    assert apply(("decision", ("nowhere", 0)), PLAN) is None
    assert apply(("stage", ("nowhere",)), PLAN) is None
    assert apply(("smaller", ("chat:0", 0)), PLAN) is None  # 1 halves to 0: that is the decision edit


def test_values_get_smaller_and_small_picks_lower():
    assert apply(("smaller", ("chat:0", "choice:0", "call:2", 3)), PLAN)[("chat:0", "choice:0", "call:2", 3)] == "ab"
    lowered = [e for e in lowerings(PLAN)]
    assert ("lower", ("chat:0", "choice:0", 0), 1) in lowered and len([e for e in lowered if e[1][-1] == 0 and len(e[1]) == 3]) == 6
    redraw = next(e for e in redraws(PLAN) if e[1] == ("chat:0", "choice:0", 0))
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
