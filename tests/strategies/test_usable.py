"""Which tools can generate arguments: every bundled one, a huge satisfiable one, and a true reason for the rest."""

import json

from toolfuzz.strategies import bundled_tools, usable_tools
from toolfuzz.strategies.arguments import MOST_OPTIONAL, validator
from toolfuzz.strategies.cases import Planner
from toolfuzz.vocabulary import Tool


def test_bundled_tools_are_all_usable():
    usable, skipped = usable_tools(bundled_tools())
    assert skipped == () and len(usable) == len(bundled_tools()) >= 10
    assert bundled_tools()[0].name == "get_weather"


def test_bad_schemas_are_reported_and_skipped_not_raised():
    good = Tool("ok", {"type": "object"})
    invalid = Tool("invalid", {"type": "object", "properties": {"x": {"type": "nope"}}})
    impossible = Tool("impossible", {"type": "object", "properties": {"x": {"type": "integer", "minimum": 5,
                                                                              "maximum": 1}},
                                     "required": ["x"], "allOf": [{}]})
    usable, skipped = usable_tools([good, invalid, impossible])
    assert usable == (good,)
    reasons = dict((t.name, why) for t, why in skipped)
    assert "properties/x/type" in reasons["invalid"]
    assert "cannot generate" in reasons["impossible"]


def large(properties: int, required: int) -> Tool:
    """A generated configuration tool: many optional settings, each described, a few required."""
    names = [f"field_{i:05d}" for i in range(properties)]
    return Tool("configure", {"type": "object", "required": names[::properties // required][:required],
                              "properties": {n: {"type": "string", "description": f"The value of setting {n} of "
                                                 "this very large configuration object."} for n in names}})


def test_a_satisfiable_schema_of_45000_properties_is_usable_and_draws_objects_a_model_would_write():
    tool = large(45_000, 10)
    assert len(json.dumps(tool.parameters)) > 5_000_000
    usable, skipped = usable_tools([tool])
    # Messages kept short: the schema itself is 5 MB.
    assert [why for _, why in skipped] == [] and len(usable) == 1
    planner = Planner(tools=usable, profiles=["openai"])
    check = validator(tool.parameters)
    # Complete calls' arguments: a case may also end a call before its arguments do.
    values = [json.loads(call.arguments) for seed in range(20) for call in planner.draw(seed).expected.calls
              if call.status == "complete"]
    assert len(values) >= 5
    sizes = sorted(len(value) for value in values)
    assert all(check.is_valid(value) and set(tool.parameters["required"]) <= set(value) for value in values)
    assert 10 < sizes[-1] <= 10 + MOST_OPTIONAL, sizes  # optional settings too, as many as a model writes


def test_a_schema_no_drawn_value_satisfies_is_skipped_without_claiming_it_unsatisfiable():
    tool = Tool("s", {"type": "object", "properties": {"x": {"type": "string", "pattern": "^a$", "minLength": 3}},
                      "required": ["x"]})
    ((_, reason),) = usable_tools([tool])[1]
    assert reason.startswith("cannot generate arguments: no value drawn in Hypothesis's tries was valid, which "
                             "does not prove that none is (Hypothesis: ")
    assert "Unsatisfiable" not in reason
