"""Loading the tools a request offers, from the files users already have.

Accepted, in one file or in a folder of ``*.json`` files:

* an OpenAI ``tools`` array: ``[{"type": "function", "function": {"name", "parameters"}}]``
* a plain list: ``[{"name", "parameters"}]``
* an MCP list: ``[{"name", "inputSchema"}]``
* any of these wrapped as ``{"tools": [...]}`` (an MCP ``tools/list`` result),
  which may say which server it lists (``{"server": "github", "tools": [...]}``)

Every problem is one :class:`ToolFileError` naming the file and the JSON path.

The tools of several MCP servers put together often repeat a name (two real
servers both define ``create_or_update_file``).  A repeat with the same
schema is kept once; one with another schema is kept apart, renamed
``<server>__<name>`` after the server that defines it (the ``server`` its
list names, else the file it came from in a folder), or ``<name>__<n>``
where neither says.  :func:`load_tools` says what it did in ``notes``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

from toolfuzz.vocabulary import Tool

__all__ = ["ToolFileError", "load_tools", "parse_tools", "tool_files"]

MAX_TOOL_FILE_BYTES = 64 * 1024 * 1024


class ToolFileError(ValueError):
    def __init__(self, source: str, path: str, message: str) -> None:
        self.source, self.path, self.message = source, path, message
        super().__init__(f"{source}: {path}: {message}" if path else f"{source}: {message}")


def tool_files(path: str | os.PathLike[str]) -> list[Path]:
    """The file ``path`` names, or every ``*.json`` file below the folder it names, sorted by path."""
    p = Path(path)
    if not p.is_dir():
        return [p]
    files = sorted(q for q in p.rglob("*.json") if q.is_file())
    if not files:
        raise ToolFileError(str(p), "", "folder holds no *.json tool files")
    return files


def load_tools(path: str | os.PathLike[str], notes: list[str] | None = None,
               reading: Callable[[Path], None] = lambda file: None) -> tuple[Tool, ...]:
    """Tools from a file, or from every ``*.json`` file below a folder (sorted by path); a name defined twice
    kept once or kept apart, as the module says, and said in ``notes``.  ``reading`` is told of each file
    before it is read."""
    files = tool_files(path)
    listed: list[tuple[Tool, str | None]] = []
    for f in files:
        reading(f)
        doc = _read_json(f)
        server = doc.get("server") if isinstance(doc, dict) and isinstance(doc.get("server"), str) else None
        if server is None and len(files) > 1:
            server = f.stem
        listed.extend((tool, server) for tool in parse_tools(doc, str(f)))
    return _apart(listed, notes if notes is not None else [])


def _apart(listed: list[tuple[Tool, str | None]], notes: list[str]) -> tuple[Tool, ...]:
    by_name: dict[str, list[tuple[Tool, str | None]]] = {}
    for tool, server in listed:
        by_name.setdefault(tool.name, []).append((tool, server))
    taken = set(by_name)
    kept_once, renamed = [], []
    out: list[Tool] = []
    for tool, server in listed:
        same = by_name[tool.name]
        if len(same) == 1:
            out.append(tool)
            continue
        distinct = []
        for other, _ in same:
            if other.parameters not in [d.parameters for d in distinct]:
                distinct.append(other)
        if len(distinct) == 1:
            if tool is same[0][0]:
                out.append(tool)
                kept_once.append(tool.name)
            continue
        n = same.index((tool, server)) + 1
        name = f"{server}__{tool.name}" if server and sum(s == server for _, s in same) == 1 else f"{tool.name}__{n}"
        while name in taken:
            name += "_"
        taken.add(name)
        renamed.append(f"{tool.name} as {name}")
        out.append(Tool(name=name, parameters=tool.parameters))
    if kept_once or renamed:
        notes.append("tool names defined more than once: "
                     + "; ".join(filter(None, [f"kept apart {', '.join(renamed)}" if renamed else "",
                                               f"the same schema kept once: {', '.join(kept_once)}" if kept_once
                                               else ""])))
    return tuple(out)


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
