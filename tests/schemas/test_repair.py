import pytest

from toolfuzz.vocabulary import Tool
from toolfuzz.schemas.repair import SchemaRejected, normalise_schema, normalise_tools


def test_other_type_systems_are_mapped_and_reported():
    schema = {"type": "dict", "properties": {
        "w": {"type": "float"}, "n": {"type": "long"}, "s": {"type": "String"},
        "l": {"type": "tuple", "items": {"type": "Boolean"}}, "a": {"type": "any"},
        "m": {"type": "HashMap"}}, "required": ["w"]}
    out, notes = normalise_schema(schema, "t")
    props = out["properties"]
    assert out["type"] == "object"
    assert [props[k].get("type") for k in "wnslam"] == ["number", "integer", "string", "array", None, "object"]
    assert props["l"]["items"]["type"] == "boolean"
    assert any(n.path == "properties.w" and "'float'" in n.note for n in notes)
    assert schema["type"] == "dict"  # the input is left alone


def test_optional_nullable_and_wrong_defaults_are_rewritten():
    schema = {"type": "object", "properties": {
        "a": {"type": "boolean", "default": "false", "optional": True},
        "b": {"type": "string", "nullable": True},
        "optional": {"type": "boolean"}}}
    out, notes = normalise_schema(schema, "t")
    assert out["properties"]["a"] == {"type": "boolean"}
    assert out["properties"]["b"]["type"] == ["string", "null"]
    assert out["properties"]["optional"] == {"type": "boolean"}  # a property may be called optional
    assert len(notes) == 3


@pytest.mark.parametrize("schema, path, words", [
    ({"type": "object", "properties": {"x": {"type": "quaternion"}}}, "properties.x.type", "unknown type"),
    ({"type": "object", "properties": {"x": {"type": ""}}}, "properties.x.type", "type name"),
    ({"type": "object", "properties": {"x": {"type": "boolean", "enum": ["True", "False"]}}},
     "properties.x.enum", "contradicts"),
    ({"type": "array"}, "type", "must be an object"),
    ({"type": "object", "properties": {"x": {"type": "string", "pattern": "("}}}, "properties.x.pattern", ""),
])
def test_what_cannot_be_normalised_is_rejected_with_tool_and_path(schema, path, words):
    with pytest.raises(SchemaRejected) as e:
        normalise_schema(schema, "mytool")
    assert e.value.tool == "mytool" and e.value.path == path and words in e.value.message
    assert "'mytool'" in str(e.value)


def test_normalise_tools_keeps_the_good_and_reports_the_bad():
    good = Tool("good", {"type": "dict", "properties": {}})
    bad = Tool("bad", {"type": "object", "properties": {"x": {"type": "nope"}}})
    kept, notes, rejected = normalise_tools([good, bad])
    assert [t.name for t in kept] == ["good"] and kept[0].parameters["type"] == "object"
    assert [r.tool for r in rejected] == ["bad"] and notes
