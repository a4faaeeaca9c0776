"""Loading tools from OpenAI, plain and MCP files, one file or a folder."""

import json

import pytest

from toolfuzz.vocabulary import Tool
from toolfuzz.schemas.load import ToolFileError, load_tools, parse_tools

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


@pytest.mark.parametrize("doc", [
    [{"type": "function", "function": {"name": "search", "description": "d", "parameters": SCHEMA}}],
    [{"name": "search", "parameters": SCHEMA}],
    [{"name": "search", "inputSchema": SCHEMA}],
    {"tools": [{"name": "search", "inputSchema": SCHEMA}]},
])
def test_every_accepted_shape_gives_the_same_tool(doc):
    assert parse_tools(doc) == (Tool("search", SCHEMA),)


def test_a_tool_without_a_schema_takes_no_arguments():
    assert parse_tools([{"name": "now"}]) == (Tool("now", {"type": "object"}),)


def test_a_folder_is_every_json_file_below_it(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{"name": "a"}]))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.json").write_text(json.dumps([{"name": "b", "inputSchema": SCHEMA}]))
    assert [t.name for t in load_tools(tmp_path)] == ["a", "b"]


@pytest.mark.parametrize("doc,words", [
    ({"x": 1}, "expected a list of tools"),
    ([3], "[0]: a tool must be an object"),
    ([{"parameters": {}}], "[0].name: a tool needs a non-empty string name"),
    ([{"type": "function", "function": {"name": "f", "parameters": []}}], "[0].function.parameters: tool 'f'"),
])
def test_bad_documents_name_the_json_path(tmp_path, doc, words):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ToolFileError) as e:
        load_tools(path)
    assert str(e.value).startswith(str(path)) and words in str(e.value)


def test_duplicate_names_across_a_folder_are_refused(tmp_path):
    for n in ("a", "b"):
        (tmp_path / f"{n}.json").write_text(json.dumps([{"name": "same"}]))
    with pytest.raises(ToolFileError, match="already defined"):
        load_tools(tmp_path)


def test_unreadable_and_non_json_files_are_one_error(tmp_path):
    with pytest.raises(ToolFileError, match="cannot read"):
        load_tools(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ToolFileError, match="not JSON"):
        load_tools(tmp_path / "bad.json")
