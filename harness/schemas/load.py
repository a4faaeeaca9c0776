"""Loading the tools a request offers, from the files users already have.

Accepted, in one file or in a folder of ``*.json`` files:

* an OpenAI ``tools`` array: ``[{"type": "function", "function": {"name", "parameters"}}]``
* a plain list: ``[{"name", "parameters"}]``
* an MCP list: ``[{"name", "inputSchema"}]``
* any of these wrapped as ``{"tools": [...]}`` (an MCP ``tools/list`` result)

Every problem is one :class:`ToolFileError` naming the file and the JSON path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from toolfuzz.vocabulary import Tool

__all__ = ["ToolFileError", "load_tools", "parse_tools"]

MAX_TOOL_FILE_BYTES = 64 * 1024 * 1024


class ToolFileError(ValueError):
    def __init__(self, source: str, path: str, message: str) -> None:
        self.source, self.path, self.message = source, path, message
        super().__init__(f"{source}: {path}: {message}" if path else f"{source}: {message}")


def load_tools(path: str | os.PathLike[str]) -> tuple[Tool, ...]:
    """Tools from a file, or from every ``*.json`` file below a folder (sorted by path)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(q for q in p.rglob("*.json") if q.is_file())
        if not files:
            raise ToolFileError(str(p), "", "folder holds no *.json tool files")
    else:
        files = [p]
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    for f in files:
        for tool in parse_tools(_read_json(f), str(f)):
            if tool.name in seen:
                raise ToolFileError(str(f), tool.name, f"tool name already defined in {seen[tool.name]}")
            seen[tool.name] = str(f)
            tools.append(tool)
    return tuple(tools)


def _read_json(path: Path) -> Any:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_TOOL_FILE_BYTES + 1)
    except OSError as e:
        raise ToolFileError(str(path), "", f"cannot read: {e.strerror or e}") from None
    if len(raw) > MAX_TOOL_FILE_BYTES:
        raise ToolFileError(str(path), "", f"larger than {MAX_TOOL_FILE_BYTES} bytes")
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise ToolFileError(str(path), "", f"not UTF-8 (byte {e.start})") from None
    except RecursionError:
        raise ToolFileError(str(path), "", "nested too deeply") from None
    except ValueError as e:
        raise ToolFileError(str(path), "", f"not JSON: {e}") from None


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def parse_tools(doc: Any, source: str = "<tools>") -> tuple[Tool, ...]:
    """Tools from an already parsed document in any of the accepted shapes."""
    prefix = ""
    if isinstance(doc, dict) and "tools" in doc:
        doc, prefix = doc["tools"], "tools"
    if not isinstance(doc, list):
        raise ToolFileError(source, prefix, "expected a list of tools")
    tools = []
    for i, item in enumerate(doc):
        path = f"{prefix}[{i}]"
        if not isinstance(item, dict):
            raise ToolFileError(source, path, "a tool must be an object")
        if isinstance(item.get("function"), dict):
            item, path = item["function"], f"{path}.function"
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ToolFileError(source, f"{path}.name", "a tool needs a non-empty string name")
        key = "inputSchema" if "inputSchema" in item else "parameters"
        schema = item.get(key, {"type": "object"})
        if schema is None:
            schema = {"type": "object"}
        if not isinstance(schema, dict):
            raise ToolFileError(source, f"{path}.{key}", f"tool {name!r}: the schema must be an object")
        tools.append(Tool(name=name, parameters=schema))
    return tuple(tools)
