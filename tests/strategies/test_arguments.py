import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolfuzz.vocabulary import Tool
from toolfuzz.strategies import bundled_tools, schema_values, tool_arguments
from toolfuzz.strategies.arguments import Unsupported, compile_schema, validator
from toolfuzz.strategies.values import LARGE_TEXT_MIN, json_values

TOOLS = bundled_tools()


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_bundled_tools_use_the_fast_path(tool):
    compile_schema(tool.parameters)  # raises Unsupported if not


@settings(max_examples=300)
@given(st.data())
def test_arguments_validate_against_their_schema(data):
    tool = data.draw(st.sampled_from(TOOLS))
    value = data.draw(tool_arguments(tool))
    assert validator(tool.parameters).is_valid(value)
    assert json.loads(json.dumps(value)) == value


def test_unsupported_keywords_fall_back_to_hypothesis_jsonschema():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 7}}, "required": ["n"],
              "additionalProperties": False}
    with pytest.raises(Unsupported):
        compile_schema(schema)

    @settings(max_examples=20, suppress_health_check=list(HealthCheck))
    @given(schema_values(schema))
    def check(value):
        assert value["n"] % 7 == 0

    check()


def test_uuid_and_date_time_formats_are_drawn_as_such():
    import uuid
    from datetime import datetime

    schema = {"type": "object", "properties": {"u": {"type": "string", "format": "uuid"},
                                               "t": {"type": "string", "format": "date-time"}},
              "required": ["u", "t"], "additionalProperties": False}

    @settings(max_examples=30)
    @given(schema_values(schema))
    def check(value):
        uuid.UUID(value["u"])
        datetime.fromisoformat(value["t"])

    check()


def _walk(value):
    yield value
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def test_values_reach_what_breaks_assemblers():
    seen = set()

    @settings(max_examples=600, database=None)
    @given(st.sampled_from(TOOLS).flatmap(tool_arguments))
    def look(value):
        for v in _walk(value):
            if isinstance(v, str):
                for ch, name in (('"', "quote"), ("\\", "backslash"), ("{", "brace"), ("\u2028", "u2028")):
                    if ch in v:
                        seen.add(name)
                if any(ord(c) < 0x20 for c in v):
                    seen.add("control")
                if any(ord(c) > 0xFFFF for c in v):
                    seen.add("astral")
                if len(v) >= LARGE_TEXT_MIN:
                    seen.add("large")
            elif type(v) is int and abs(v) >= 2**64:
                seen.add("big-int")
            elif type(v) is float and "e" in repr(v):
                seen.add("exponent")

    look()
    assert seen >= {"quote", "backslash", "brace", "control", "astral", "large", "big-int", "exponent"}


def test_free_form_values_sometimes_nest_deeply():
    depths = []

    def depth(v):
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        return 0

    @settings(max_examples=400, database=None)
    @given(json_values())
    def look(v):
        depths.append(depth(v))

    look()
    assert max(depths) >= 16


def test_arguments_shrink_to_plain_values():
    from hypothesis import find

    tool = next(t for t in TOOLS if t.name == "write_file")
    smallest = find(tool_arguments(tool), lambda v: True,
                    settings=settings(database=None, suppress_health_check=list(HealthCheck)))
    assert smallest == {"path": "a", "content": ""}


def test_no_argument_tool_gives_an_empty_object():
    tool = Tool("noop", {"type": "object", "properties": {}, "additionalProperties": False})

    @settings(max_examples=10)
    @given(tool_arguments(tool))
    def check(v):
        assert v == {}

    check()


def test_all_of_and_a_ref_beside_other_keywords_are_merged_on_the_fast_path():
    schema = {"$defs": {"base": {"type": "object", "required": ["id"],
                                 "properties": {"id": {"type": "integer", "minimum": 0}}}},
              "type": "object", "properties": {"id": {"maximum": 9}},
              "allOf": [{"$ref": "#/$defs/base"},
                        {"properties": {"tag": {"$ref": "#/$defs/tag", "maxLength": 5}}, "required": ["tag"]}]}
    schema["$defs"]["tag"] = {"type": "string", "minLength": 1}
    compile_schema(schema)  # raises Unsupported if not
    check = validator(schema)
    drawn = []

    @settings(max_examples=100, database=None)
    @given(schema_values(schema))
    def draw(value):
        assert check.is_valid(value) and 0 <= value["id"] <= 9 and 1 <= len(value["tag"]) <= 5
        drawn.append(value)

    draw()
    assert len({v["id"] for v in drawn}) > 3


def test_all_of_whose_types_never_meet_is_outside_the_fast_path():
    with pytest.raises(Unsupported, match="never meet"):
        compile_schema({"allOf": [{"type": "string"}, {"type": ["integer", "null"]}]})
    compile_schema({"allOf": [{"type": "number"}, {"type": ["integer", "null"]}]})
