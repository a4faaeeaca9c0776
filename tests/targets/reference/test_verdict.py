"""Parsing and checking finished arguments."""

import pytest

from toolfuzz.vocabulary import Tool
from toolfuzz.targets.reference.verdict import ToolBook, join_surrogates, parse_arguments


def test_empty_or_blank_arguments_mean_no_arguments():
    assert parse_arguments("") == {}
    assert parse_arguments(" \n\t") == {}


def test_integers_past_64_bits_keep_every_digit():
    assert parse_arguments('{"n": 123456789012345678901234567890}') == {"n": 123456789012345678901234567890}


@pytest.mark.parametrize("text", ['{"a": NaN}', "Infinity", '{"a": 1', '{"a": 1} x', "{'a': 1}", '{"a": 1}{}'])
def test_what_is_not_one_json_text_is_refused(text):
    with pytest.raises(ValueError):
        parse_arguments(text)


def test_surrogate_halves_join_and_a_lone_half_becomes_a_replacement_character():
    assert join_surrogates("a\ud83d\ude00b") == "a😀b"
    assert join_surrogates("a\ud83db") == "a\ufffdb"
    plain = "no surrogates é"
    assert join_surrogates(plain) is plain


def test_a_tool_book_judges_names_then_schemas():
    book = ToolBook([Tool("f", {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}},
                                "required": ["n"]})])
    assert book.status("f", '{"n": 2}') == "complete"
    assert book.status("f", '{"n": 4}') == "schema_invalid"
    assert book.status("f", "{}") == "schema_invalid"
    assert book.status("g", '{"n": 2}') == "unknown_tool"
    assert book.status("f", '{"n": 2') == "invalid_json"


def test_formats_are_annotations_not_assertions():
    # Servers and SDKs do not enforce format; neither does the reference, so
    # its verdict does not depend on which optional format checkers are installed.
    book = ToolBook([Tool("f", {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}})])
    assert book.status("f", '{"id": "not-a-uuid"}') == "complete"


def test_without_tools_every_json_text_is_complete():
    assert ToolBook([]).status(None, "[1, 2]") == "complete"
    assert not ToolBook([])


def test_deeply_nested_arguments_are_invalid_not_a_crash():
    assert ToolBook([]).status(None, "[" * 100_000) == "invalid_json"
