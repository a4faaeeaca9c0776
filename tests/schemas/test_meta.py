"""Whether a schema is valid JSON Schema, checked on its distinct shapes: the metaschema's verdict, found fast."""

from __future__ import annotations

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from toolfuzz.schemas import meta
from toolfuzz.schemas.meta import schema_error


def settings(n: int, **extra) -> dict:
    """An object of ``n`` described string settings: many subschemas of one shape."""
    return {"type": "object", **extra,
            "properties": {f"s{i}": {"type": "string", "description": f"setting {i}"} for i in range(n)}}


SCHEMAS = [
    settings(50),
    settings(50, required=["s1"]),
    {**settings(50), "properties": {**settings(50)["properties"], "s49": {"type": "string", "minLength": "3"}}},
    {**settings(50), "properties": {**settings(50)["properties"], "s7": {"type": "nope"}}},
    {**settings(50), "properties": {**settings(50)["properties"], "s9": {"description": 5}}},
    {"type": "object", "patternProperties": {"([": {"type": "string"}}},
    {"type": "object", "$defs": {"a": {"type": "integer"}, "b": {"type": "integer", "maximum": "x"}}},
    {"$schema": "http://json-schema.org/draft-07/schema#", **settings(20, required="s1")},
    {"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "title": "t"}, {"enum": []}]}}},
    {"type": "array", "items": [{"type": "string"}, {"type": 3}]},
    True,
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_verdict_and_the_place_are_the_metaschemas_own(schema):
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
        expected = None
    except SchemaError as e:
        expected = (list(e.path), e.message)
    meta._checked.clear()
    meta._by_text.clear()
    error = schema_error(schema)
    assert (None if error is None else (list(error.path), error.message)) == expected


def test_the_schemas_above_are_valid_and_invalid_both():
    verdicts = [schema_error(schema) is None for schema in SCHEMAS]
    assert verdicts.count(True) >= 3 and verdicts.count(False) >= 5


def test_45000_alike_properties_are_checked_as_one_shape():
    big = settings(45_000, required=["s0"])
    assert list(meta._shapes(big)["properties"]) == ["s0"]
    assert schema_error(big) is None
    assert schema_error(Draft7Validator.META_SCHEMA) is None


def test_an_equal_schema_in_an_object_of_its_own_is_checked_once(monkeypatch):
    # Fixtures loaded from files each hold their own copy of their tools' schemas.
    checked = []
    original = Draft202012Validator.check_schema.__func__
    monkeypatch.setattr(Draft202012Validator, "check_schema",
                        classmethod(lambda cls, schema: checked.append(schema) or original(cls, schema)))
    meta._checked.clear()
    meta._by_text.clear()
    bad = {"type": "object", "properties": {"a": {"type": "nope"}}}
    first = schema_error(bad)
    again = schema_error({"type": "object", "properties": {"a": {"type": "nope"}}})
    assert again is first and first.message.startswith("'nope' is not valid")
    assert len(checked) == 2  # the shapes, then the whole schema for the place: once, for both copies
    assert schema_error(settings(3)) is None and schema_error(settings(3)) is None and len(checked) == 3


def test_a_tuple_is_not_taken_for_the_list_it_writes_as():
    # The metaschema holds a tuple to be no array: the list's verdict is not the tuple's.
    assert schema_error({"type": "object", "required": ["a"]}) is None
    assert schema_error({"type": "object", "required": ("a",)}) is not None
