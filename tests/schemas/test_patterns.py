"""toolfuzz.schemas.patterns: JSON Schema patterns read as ECMA-262 reads them, by the validators and the draws."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from toolfuzz.schemas.patterns import UntranslatablePattern, python_pattern, python_schema, validator
from toolfuzz.schemas.repair import SchemaRejected, normalise_schema
from toolfuzz.strategies.arguments import schema_values
from toolfuzz.strategies.expect import verdict
from toolfuzz.strategies.usable import usable_tools
from toolfuzz.targets.reference.verdict import ToolBook
from toolfuzz.vocabulary import COMPLETE, SCHEMA_INVALID, Tool

CODE = Tool("book", {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
                     "required": ["code"]})


def searches(pattern: str, text: str) -> bool:
    return re.search(python_pattern(pattern), text) is not None


@pytest.mark.parametrize("arguments,status", [('{"code": "MBV"}', COMPLETE), ('{"code": "MBV\\n"}', SCHEMA_INVALID),
                                              ('{"code": "MBVX"}', SCHEMA_INVALID)])
def test_dollar_is_the_end_of_the_string_for_the_reference_and_the_expectation(arguments, status):
    # Python's $ also matches before a final newline; ECMA-262's does not.
    assert ToolBook([CODE]).status("book", arguments) == status
    assert verdict("book", arguments, [CODE]) == status


@settings(max_examples=300, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(schema_values(CODE.parameters))
def test_values_drawn_for_an_anchored_pattern_never_end_in_a_newline(value):
    assert re.fullmatch("[A-Z]{3}", value["code"])


@settings(max_examples=100, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(schema_values({"type": "object", "properties": {"code": {"type": "string", "pattern": "^(?<c>[A-Z]{3})$"},
                                                        "n": {"not": {"type": "null"}}}, "required": ["code"]}))
def test_the_fallback_draws_patterns_as_ecma_262_reads_them_too(value):
    # `not` sends the schema to hypothesis-jsonschema (or, where it cannot draw, the lenient path): handed the
    # pattern as Python spells it, or its re would refuse the named group.
    assert re.fullmatch("[A-Z]{3}", value["code"])


@pytest.mark.parametrize("pattern,text,found", [
    ("^a$", "a\n", False), ("^a$", "a", True), ("a$", "ba", True),
    (r"^\d$", "\u0663", False), (r"^\d$", "7", True), (r"^\D$", "\u0663", True),
    (r"^\w+$", "caf\u00e9", False), (r"^\W$", "\u00e9", True),
    (r"^\s$", "\ufeff", True), (r"^\s$", "\x85", False), (r"^\s$", "\u2028", True), (r"^\S$", "\x1c", True),
    (r"^a.b$", "a\rb", False), (r"^a.b$", "a\u2028b", False), (r"^a.b$", "a\u00e9b", True),
    (r"\bx", "\u00e9x", True), (r"\Bx", "\u00e9x", False),
    (r"^[\d\s]+$", "1 2\t3", True), (r"^[^\d]$", "\u0663", True),
    (r"^(?<y>\d{2})-\k<y>$", "12-12", True), (r"^(?<y>\d{2})-\k<y>$", "12-13", False),
    (r"^\u{1F600}$", "\U0001f600", True), (r"^\uD83D\uDE00$", "\U0001f600", True), (r"^\u00e9$", "\u00e9", True),
    (r"^\cJ$", "\n", True), (r"^\x41$", "A", True), (r"^\0$", "\x00", True), (r"^(a)\1$", "aa", True),
    ("a[]", "a", False), ("^[^]$", "\n", True), (r"^[[]$", "[", True), (r"^\/$", "/", True),
])
def test_each_construct_means_what_it_means_in_ecma_262(pattern, text, found):
    assert searches(pattern, text) is found


@pytest.mark.parametrize("pattern,words", [
    (r"\p{L}", "Unicode property escapes"), (r"[\S]", "inside a character class"), (r"[\D]", "inside"),
    ("(?i)a", "no ECMA-262 group"), ("a{,3}", "no quantifier"), (r"\q", "no ECMA-262 escape"),
    ("a\\", "lone backslash"), ("[a", "not closed"), (r"(?<=a+)b", "Python's re cannot read it"),
])
def test_what_has_no_exact_translation_is_refused_with_the_reason(pattern, words):
    with pytest.raises(UntranslatablePattern, match=re.escape(words)):
        python_pattern(pattern)


def test_the_schema_s_patterns_are_translated_and_its_data_is_left_alone():
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x$"}},
              "patternProperties": {"^k$": {"const": {"pattern": "^x$"}}}, "enum": [{"pattern": "$"}]}
    out = python_schema(schema)
    assert out["properties"]["a"]["pattern"] == "^x\\Z"
    assert list(out["patternProperties"]) == ["^k\\Z"]
    assert out["patternProperties"]["^k\\Z"]["const"] == {"pattern": "^x$"} and out["enum"] == schema["enum"]
    plain = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert python_schema(plain) is plain


def test_pattern_properties_keys_are_read_as_ecma_262_reads_them():
    check = validator({"type": "object", "patternProperties": {"^k$": {"type": "integer"}},
                       "additionalProperties": False})
    assert check.is_valid({"k": 1}) and not check.is_valid({"k\n": 1}) and not check.is_valid({"k": "x"})


def test_a_pattern_that_cannot_be_translated_names_its_place_wherever_it_is_met():
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": r"^\p{Lu}"}}}
    with pytest.raises(UntranslatablePattern) as e:
        validator(schema)
    assert e.value.path == "properties.name.pattern"
    with pytest.raises(SchemaRejected, match=r"properties\.name\.pattern: cannot read pattern .* Unicode property"):
        normalise_schema(schema, "greet")
    with pytest.raises(ValueError, match=r"tool 'greet': pattern .* at properties\.name\.pattern"):
        ToolBook([Tool("greet", schema)])
    usable, skipped = usable_tools([Tool("greet", schema)])
    assert usable == () and "cannot read a pattern as ECMA-262 does" in skipped[0][1]


def test_an_ecma_262_pattern_python_spells_otherwise_is_a_valid_schema():
    # A named group is '(?<y>...)' in ECMA-262 and '(?P<y>...)' in Python: checked as translated, it is a regex.
    schema = {"type": "object", "properties": {"d": {"type": "string", "pattern": r"^(?<y>\d{4})$"}}}
    assert normalise_schema(schema, "t")[0] == schema
    assert ToolBook([Tool("t", schema)]).status("t", '{"d": "2024"}') == COMPLETE
    assert usable_tools([Tool("t", schema)])[0] == (Tool("t", schema),)


#: ECMA-262's \s, spelled out.
_SPACE = "[\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"


@settings(max_examples=50, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(schema_values({"type": "object", "properties": {"w": {"type": "string", "pattern": r"^\w+\s\d$"}},
                      "required": ["w"]}))
def test_drawn_values_of_a_translated_pattern_are_ascii_words_and_digits(value):
    assert re.fullmatch(f"[A-Za-z0-9_]+{_SPACE}[0-9]", value["w"])
