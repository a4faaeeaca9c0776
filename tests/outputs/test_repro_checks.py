"""toolfuzz.outputs.repro_checks: each check agrees with the judge on every recorded fixture, and prints one line.

Every library fixture in findings/ records what its target gave and the kind the judge named: the check for
that kind must see it in what was recorded, and must not see it in the answer the stream asks for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolfuzz.corpus.fixtures import Fixture, iter_fixture_paths, load
from toolfuzz.corpus.grades import diverging
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.compare_partial import holds_value
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.outputs import repro_checks
from toolfuzz.outputs.repro_checks import CHECKS, assembled_deltas, each_prefix, reproduce
from toolfuzz.strategies.markup import FORMATS
from toolfuzz.targets.adapters.recipes import RECIPES
from toolfuzz.vocabulary import text_format
from tests.paths import ROOT

FAMILY = {"events": "calls", "bytes": "calls", "sse": "events", "partial": "prefixes", "producer": "producer"}


def recorded() -> list[tuple[str, str, Fixture, dict]]:
    found = []
    for path in iter_fixture_paths([str(ROOT / "findings")]):
        fixture = load(path)
        for target, seen in diverging(fixture):
            level = seen.get("level")
            # A fixture is JSON, which cannot keep two lone UTF-16 halves side by side: what a target gave
            # for a case of utf16-halves reads back joined, not as it was given.
            if level in FAMILY and seen["kind"] in CHECKS[FAMILY[level]] and not target.startswith("selftest-") \
                    and "utf16-halves" not in fixture.case.features:
                found.append((f"{Path(path).name}:{target}", target, fixture, seen))
    return found


RECORDED = recorded()


def check(target: str, fixture: Fixture, seen: dict, answer) -> tuple[bool, str]:
    """The fixture's check, called as its repro script calls it."""
    case, kind, family = fixture.case, seen["kind"], FAMILY[seen["level"]]
    fn = CHECKS[family][kind]
    if family == "calls":
        expected = case.expected.to_json()["calls"]
        values = kind == "arguments_differ" and target in RECIPES and RECIPES[target].values
        return fn(expected, answer, values=True) if values else fn(expected, answer)
    if family == "events":
        return fn([{"event": e.event, "data": e.data, "id": e.id} for e in expected_events(case)], answer)
    if family == "prefixes":
        return fn(answer)
    written = [{"name": c.name, "arguments": c.arguments} for c in case.expected.calls]
    if kind == "markup_leaked":
        return fn(written, case.expected.content, answer, FORMATS[text_format(case.dialect)].specials)
    return fn(written, case.expected.content, answer)


def as_recorded(fixture: Fixture, seen: dict):
    """What the target gave, as the fixture records it, in the shape its script's check is handed."""
    observation, family = seen["observation"], FAMILY[seen["level"]]
    if family == "calls":
        return observation["calls"]
    if family == "events":
        return observation["events"]
    if family == "prefixes":
        texts = texts_of(fixture.case.expected)
        return [(p["length"], None if "raised" in p else json.loads(p["value"]),
                 ValueError(p["raised"]) if "raised" in p else None) for p in observation["prefixes"]
                if p["length"] < len(texts[p["text"]].text) and holds_value(texts[p["text"]].text, p["length"])]
    return {"content": observation["content"], "deltas": observation["deltas"], "whole": observation["whole"]}


def as_asked(fixture: Fixture, seen: dict):
    """The answer the stream asks for: what a library without the bug gives."""
    case, family = fixture.case, FAMILY[seen["level"]]
    if family == "calls":
        return [{"choice": c.choice, "index": c.index, "id": c.id, "name": c.name, "arguments": c.arguments,
                 "complete": c.status != "incomplete"} for c in case.expected.calls]
    if family == "events":
        return [{"event": e.event, "data": e.data, "id": e.id} for e in expected_events(case)]
    if family == "prefixes":
        return [(n, {}, None) for n in range(1, 10)]
    calls = case.expected.calls
    deltas = [{"index": k, "id": f"call_{k}", "type": "function",
               "function": {"name": c.name, "arguments": c.arguments}} for k, c in enumerate(calls)]
    return {"content": case.expected.content or "", "deltas": deltas,
            "whole": {"content": case.expected.content or "", "calls": [{"name": c.name, "arguments": c.arguments}
                                                                       for c in calls]}}


def test_the_corpus_has_a_fixture_of_every_kind_with_a_check_that_bugs_have():
    kinds = {(FAMILY[seen["level"]], seen["kind"]) for _, _, _, seen in RECORDED}
    for family, kind in [("calls", "call_lost"), ("calls", "arguments_misattributed"), ("calls", "arguments_differ"),
                         ("calls", "id_differs"), ("calls", "name_differs"), ("calls", "incomplete_handed_on"),
                         ("events", "event_lost"), ("events", "phantom_event"), ("events", "data_differs"),
                         ("prefixes", "raised_on_prefix"), ("producer", "content_differs"),
                         ("producer", "whole_differs"), ("producer", "call_lost"), ("producer", "arguments_invalid"),
                         ("producer", "arguments_differ"), ("producer", "markup_leaked")]:
        assert (family, kind) in kinds


@pytest.mark.parametrize("label,target,fixture,seen", RECORDED, ids=[r[0] for r in RECORDED])
def test_each_check_sees_what_the_judge_recorded_and_not_what_the_stream_asks_for(label, target, fixture, seen):
    shows, what = check(target, fixture, seen, as_recorded(fixture, seen))
    assert shows, what
    shows, what = check(target, fixture, seen, as_asked(fixture, seen))
    assert not shows, what


EXPECTED = [{"choice": 0, "index": 0, "id": "call_1", "name": "f", "arguments": '{"a": 1}', "status": "complete"}]


def test_arguments_compared_as_values_for_a_library_that_keeps_a_value():
    spelled = [{"choice": 0, "index": 0, "id": "call_1", "name": "f", "arguments": '{"a":1}', "complete": True}]
    assert repro_checks.arguments_differ(EXPECTED, spelled)[0]
    assert not repro_checks.arguments_differ(EXPECTED, spelled, values=True)[0]


def test_an_integer_id_is_read_as_its_digits():
    given = [{**EXPECTED[0], "id": 1001, "complete": True}]
    assert not repro_checks.id_differs([{**EXPECTED[0], "id": "1001"}], given)[0]


def test_a_server_s_deltas_are_assembled_by_index():
    deltas = [{"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x"'}},
              {"index": 1, "id": "b", "function": {"name": "g", "arguments": "{}"}},
              {"index": 0, "function": {"arguments": ": 1}"}}]
    assert assembled_deltas(deltas) == [{"index": 0, "id": "a", "name": "f", "arguments": '{"x": 1}'},
                                        {"index": 1, "id": "b", "name": "g", "arguments": "{}"}]


def test_each_prefix_answers_a_raise_as_that_prefix_s_answer():
    answers = each_prefix(json.loads, '{"a": 1}', [3, 8])
    assert answers[1] == (8, {"a": 1}, None) and isinstance(answers[0][2], ValueError)


def test_reproduce_says_reproduced_and_exits_1_while_the_bug_shows(capsys):
    assert reproduce(lambda: [{**EXPECTED[0], "id": "call_1call_1"}],
                     lambda calls: repro_checks.id_differs(EXPECTED, calls)) == 1
    out = capsys.readouterr().out
    assert out == "REPRODUCED: call 0 of choice 0: the stream gave the id 'call_1', but 'call_1call_1' is handed on\n"


def test_reproduce_says_not_reproduced_and_exits_0_once_fixed(capsys):
    assert reproduce(lambda: [{**EXPECTED[0], "complete": True}],
                     lambda calls: repro_checks.id_differs(EXPECTED, calls)) == 0
    assert capsys.readouterr().out == "NOT REPRODUCED: every call has the id the stream gave it\n"


def test_a_raise_is_the_bug_when_recorded_and_a_change_when_not(capsys):
    def fails():
        raise IndexError("list assignment\nindex out of range")
    assert reproduce(fails, raises="IndexError") == 1
    assert capsys.readouterr().out == "REPRODUCED: raised IndexError: list assignment index out of range\n"
    assert reproduce(fails, raises="KeyError") == 1
    assert capsys.readouterr().out.endswith("(the fixture recorded KeyError)\n")
    assert reproduce(fails, lambda calls: repro_checks.id_differs(EXPECTED, calls)) == 2
    out, err = capsys.readouterr()
    assert out.startswith("CHANGED: raised IndexError") and "Traceback" in err
    assert reproduce(lambda: [], raises="IndexError") == 0
    assert capsys.readouterr().out == "NOT REPRODUCED: returned without raising\n"


def test_a_library_that_runs_past_the_limit_is_stopped_there(capsys):
    def forever():
        while True:
            pass
    assert reproduce(forever, seconds=0.2) == 1
    assert capsys.readouterr().out.startswith("REPRODUCED: still running after 0.2 s")
    assert reproduce(lambda: None, seconds=30) == 0  # the limit is a guard, far above what this takes
    assert capsys.readouterr().out.startswith("NOT REPRODUCED: finished in")


def test_a_library_s_broad_except_cannot_swallow_the_limit(capsys):
    swallowed = []

    def swallowing():
        while len(swallowed) < 3:
            try:
                while True:
                    pass
            except Exception as e:  # noqa: BLE001 - what some libraries do around their parsing
                swallowed.append(e)
    assert reproduce(swallowing, seconds=0.2) == 1
    assert capsys.readouterr().out.startswith("REPRODUCED: still running after 0.2 s") and swallowed == []


def test_the_checks_no_library_fixture_holds_yet_see_their_kind_and_only_it():
    """choices_mixed and event_type_differs: no library in findings/ shows them, so they are held here."""
    two = [{**EXPECTED[0]}, {**EXPECTED[0], "choice": 1, "id": "call_2", "arguments": "{}"}]
    right = [{**c, "complete": True} for c in two]
    crossed = [{**right[0], "choice": 1}, {**right[1], "choice": 0}]
    assert repro_checks.choices_mixed(two, crossed) == (True, "call 'call_1' of choice 0 is handed on in choice 1")
    assert not repro_checks.choices_mixed(two, right)[0]
    events = [{"event": "message", "data": "x", "id": ""}]
    assert repro_checks.event_type_differs(events, [{"event": "ping", "data": "x", "id": None}])[0]
    # An unnamed type is the spec's "message".
    assert not repro_checks.event_type_differs(events, [{"event": None, "data": "x", "id": None}])[0]
