"""The tools cases are drawn for: a user's tool file loaded with what it held said, and progress while it loads."""

from __future__ import annotations

import json

import pytest

from toolfuzz.errors import UsageError
from toolfuzz.strategies import corpus
from toolfuzz.strategies.corpus import resolve_tools


def write(path, tools) -> None:
    path.write_text(json.dumps(tools), encoding="utf-8")


def test_a_tool_folder_says_how_many_tools_it_loaded_from_how_many_files_and_how_many_it_skipped(tmp_path):
    bad = {"type": "object", "properties": {"x": {"type": "nope"}}}
    write(tmp_path / "a.json", [{"name": "ok", "parameters": {"type": "object"}}, {"name": "bad", "parameters": bad}])
    write(tmp_path / "b.json", {"tools": [{"name": "never", "inputSchema": {"type": "string", "minLength": 2,
                                                                           "maxLength": 1}},
                                          {"name": "fine", "inputSchema": {"type": "object"}}]})
    said: list[str] = []
    usable = resolve_tools(str(tmp_path), said.append)
    assert [t.name for t in usable] == ["ok", "fine"]
    assert said[-1] == f"{tmp_path}: 4 tools from 2 files, 2 skipped"
    skipped = [line for line in said if ": skipped " in line]
    assert len(skipped) == 2 and "'bad'" in skipped[0] and "'never'" in skipped[1]


def test_loading_a_large_tool_set_says_what_it_is_doing_while_it_lasts(tmp_path, monkeypatch):
    # Every few milliseconds instead of every 10 s: loading these 5 MB takes far longer than one interval
    # anywhere, so lines come whatever the machine's speed; how many is not asserted.
    monkeypatch.setattr(corpus, "PROGRESS_EVERY", 0.002)
    properties = {f"field_{i:05d}": {"type": "string", "description": f"setting {i} of a large configuration"}
                  for i in range(45_000)}
    write(tmp_path / "big.json", [{"name": "configure", "parameters": {"type": "object", "properties": properties,
                                                                        "required": ["field_00000"]}}])
    said: list[str] = []
    (tool,) = resolve_tools(str(tmp_path / "big.json"), said.append)
    progress = [line for line in said if ": still loading, " in line]
    assert progress and all(line.startswith(f"{tmp_path / 'big.json'}: still loading, ") for line in progress)
    assert any(line.endswith("(configure)") for line in progress)
    assert said[-1] == f"{tmp_path / 'big.json'}: 1 tool from 1 file, 0 skipped"


def test_a_tool_file_no_tool_of_which_can_draw_is_one_usage_error_after_saying_what_it_loaded(tmp_path):
    write(tmp_path / "t.json", [{"name": "bad", "parameters": {"type": "object", "properties": {"x": {"type": 7}}}}])
    said: list[str] = []
    with pytest.raises(UsageError, match="no tool can generate arguments"):
        resolve_tools(str(tmp_path / "t.json"), said.append)
    assert said[-1].endswith("1 tool from 1 file, 1 skipped")
