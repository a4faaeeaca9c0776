"""Plans: a drawn case renders again byte for byte, and any edit of its plan renders to a valid case."""

from __future__ import annotations

from random import Random

import pytest

from toolfuzz.strategies.cases import PLAIN_WIRE
from toolfuzz.strategies.cases import Planner
from toolfuzz.strategies.plans import Drawer, plan_from_json, plan_to_json, simplest_integer
from toolfuzz.strategies.stage import integer, named, text
from toolfuzz.targets.reference import assemble
from toolfuzz.vocabulary import DIALECTS


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_drawn_case_renders_again_from_its_plan_byte_for_byte(dialect):
    planner = Planner(dialect=dialect)
    for seed in range(150):
        case = planner.draw(seed)
        again = planner.render(case.plan)
        assert (again.reads, again.expected, again.features, again.events) == \
            (case.reads, case.expected, case.features, case.events), seed
        assert again.plan == case.plan


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_empty_plan_is_the_plain_case(dialect):
    case = Planner(dialect=dialect).render({})
    assert len(case.expected.calls) == 1 and len(case.reads) == 1
    if dialect == "openai-chat":
        assert set(case.features) == PLAIN_WIRE


def test_any_edit_of_a_plan_renders_to_a_case_the_reference_agrees_with():
    planner = Planner()
    rnd = Random(3)
    for seed in range(60):
        plan = dict(planner.draw(seed).plan)
        keys = rnd.sample(sorted(plan, key=repr), k=min(5, len(plan)))
        for key in keys:
            plan[key] = rnd.choice([0, 1, 7, 10**6, -3, True, "x", plan[key]])
        case = planner.render(plan)
        assert assemble(case.reads, case.tools, case.limits) == case.expected, (seed, keys)


def test_a_drawer_records_only_what_differs_from_the_simplest_draw():
    drawer = Drawer(rnd=Random(1))
    values = [integer(drawer, 0, 0) for _ in range(5)]
    assert values == [0] * 5 and drawer.decisions == {}
    with named(drawer, "call"):
        n = integer(drawer, 3, 9)
    assert drawer.decisions == ({("call:0", 0): n} if n != 3 else {})


def test_names_count_within_their_stage_so_later_stages_keep_their_meaning():
    drawer = Drawer(given={("call:1", 0): 5})
    with named(drawer, "call"):
        first = integer(drawer, 0, 9)
    with named(drawer, "call"):
        second = integer(drawer, 0, 9)
    assert (first, second) == (0, 5)


def test_a_read_back_decision_outside_its_range_is_clamped_and_a_missing_one_is_the_simplest():
    drawer = Drawer(given={(0,): 50, (1,): "much too long for it"})
    assert integer(drawer, 0, 9) == 9
    assert text(drawer, "ab", 0, 4) == ""
    assert integer(drawer, 2, 5) == 2
    assert simplest_integer(-5, 5) == 0 and simplest_integer(3, 9) == 3 and simplest_integer(-9, -3) == -3


def test_a_plan_goes_through_json_and_back():
    plan = Planner().draw(11).plan
    import json

    assert plan_from_json(json.loads(json.dumps(plan_to_json(plan)))) == plan
