"""toolfuzz draws arguments whatever Hypothesis is installed, the newest included.

hypothesis-jsonschema 0.23.1 calls ``many(...).more()``, which Hypothesis
removed in 6.170.10; with a newer Hypothesis every object schema fails when
first drawn (``'many' object has no attribute 'more'``), and from_schema()
itself never fails, so only a draw tells.  toolfuzz asks once
(``fallback_problem``) and draws without it where it cannot.  .ci/run runs
these tests on the pinned Hypothesis (where hypothesis-jsonschema draws) and
on the newest (where it does not): each assertion holds on both.
"""

import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis_jsonschema import from_schema

from toolfuzz.strategies import schema_values, usable_tools
from toolfuzz.strategies.arguments import Unsupported, compile_schema, fallback_problem, validator
from toolfuzz.vocabulary import Tool

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
          "required": ["a"]}


def _draws_an_object() -> bool:
    try:
        find(from_schema(SCHEMA), lambda v: True,
             settings=settings(max_examples=5, database=None, phases=[Phase.generate],
                               suppress_health_check=list(HealthCheck)))
    except AttributeError:
        return False
    return True


def test_the_fallback_problem_is_whether_hypothesis_jsonschema_draws_an_object():
    problem = fallback_problem()
    if _draws_an_object():
        assert problem is None
    else:
        assert f"hypothesis {hypothesis.__version__}" in problem and "hypothesis-jsonschema 0.23.1" in problem


def test_keywords_outside_the_subset_draw_valid_values_on_any_hypothesis():
    schema = {"type": "object", "additionalProperties": False, "required": ["n", "s"],
              "properties": {"n": {"type": "integer", "multipleOf": 7, "minimum": -50, "maximum": 50},
                             "s": {"type": "string", "not": {"const": ""}}}}
    with pytest.raises(Unsupported):  # multipleOf and not are outside the fast path's own subset
        compile_schema(schema)
    check = validator(schema)
    drawn = []

    @settings(max_examples=30, database=None, suppress_health_check=list(HealthCheck))
    @given(schema_values(schema))
    def draw(value):
        assert check.is_valid(value)
        drawn.append(value)

    draw()
    assert len(drawn) >= 10 and len({v["n"] for v in drawn}) > 1


def test_a_schema_only_hypothesis_jsonschema_draws_is_reported_where_it_cannot():
    # Tuple-form items (draft 7) are outside the fast path even when it is lenient.
    pair = Tool("pair", {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["p"],
                         "properties": {"p": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}}})
    usable, skipped = usable_tools([pair])
    problem = fallback_problem()
    assert (usable == (pair,)) == (problem is None)
    assert [why for _, why in skipped] == ([] if problem is None else
                                           [f"cannot generate arguments: tuple items: outside toolfuzz's own "
                                            f"subset, and {problem}"[:500]])
