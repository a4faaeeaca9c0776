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


FILE_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}
BRANCH_SCHEMA = {"type": "object", "properties": {"branch": {"type": "string"}}}


def test_a_name_two_mcp_servers_define_is_kept_apart_and_an_identical_repeat_kept_once(tmp_path):
    (tmp_path / "github.json").write_text(json.dumps({"tools": [
        {"name": "create_or_update_file", "inputSchema": BRANCH_SCHEMA}, {"name": "ping"}]}))
    (tmp_path / "gitlab.json").write_text(json.dumps({"server": "gitlab-mcp", "tools": [
        {"name": "create_or_update_file", "inputSchema": FILE_SCHEMA}, {"name": "ping"}]}))
    notes: list[str] = []
    tools = load_tools(tmp_path, notes)
    assert [(t.name, t.parameters) for t in tools] == [
        ("github__create_or_update_file", BRANCH_SCHEMA), ("ping", {"type": "object"}),
        ("gitlab-mcp__create_or_update_file", FILE_SCHEMA)]
    assert notes == ["tool names defined more than once: kept apart create_or_update_file as "
                     "github__create_or_update_file, create_or_update_file as gitlab-mcp__create_or_update_file; "
                     "the same schema kept once: ping"]


def test_a_name_repeated_in_one_list_without_servers_is_numbered(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "f", "parameters": FILE_SCHEMA}, {"name": "f", "parameters": BRANCH_SCHEMA},
                                {"name": "f__2"}]))
    assert [t.name for t in load_tools(path)] == ["f__1", "f__2_", "f__2"]


def test_unreadable_and_non_json_files_are_one_error(tmp_path):
    with pytest.raises(ToolFileError, match="cannot read"):
        load_tools(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ToolFileError, match="not JSON"):
        load_tools(tmp_path / "bad.json")
