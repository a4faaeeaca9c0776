"""Sloppy tool schemas made into JSON Schema, or rejected with the tool and the JSON path.

Real tool files are written by hand or converted from other type systems:
``"type": "dict"`` (BFCL uses it for every schema), ``float``, ``any``,
Java-ish ``String`` and ``HashMap``, a non-standard ``optional`` keyword,
OpenAPI's ``nullable``, defaults of the wrong type.  What has one obvious
meaning is rewritten, and every rewrite is reported; what has none
(an unknown type name, an ``enum`` whose values contradict ``type``, a
top level that is not an object) is rejected.

Open objects stay open: generation treats them as closed (see
docs/strategies.md), but the schema the reference validates with is the
user's, only normalised.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Iterable

from jsonschema.exceptions import SchemaError

from toolfuzz.schemas.meta import LIST as _LIST, MAP as _MAP, ONE as _ONE
from toolfuzz.schemas.patterns import UntranslatablePattern, validator
from toolfuzz.vocabulary import Tool

__all__ = ["SchemaRejected", "Rewrite", "normalise_schema", "normalise_tools", "TYPE_NAMES"]

_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
#: Names other type systems use, and the JSON Schema type each one means (None: any type).
TYPE_NAMES: dict[str, str | None] = {
    **{t: t for t in _JSON_TYPES},
    "dict": "object", "map": "object", "hashmap": "object", "hashtable": "object", "object": "object",
    "float": "number", "double": "number", "decimal": "number",
    "int": "integer", "long": "integer", "short": "integer", "byte": "integer", "bigint": "integer",
    "str": "string", "char": "string", "text": "string",
    "bool": "boolean",
    "list": "array", "tuple": "array", "arraylist": "array", "queue": "array", "stack": "array", "set": "array",
    "any": None,
}
_PY = {"null": type(None), "boolean": bool, "integer": int, "number": (int, float), "string": str,
       "array": list, "object": dict}


class SchemaRejected(ValueError):
    def __init__(self, tool: str, path: str, message: str) -> None:
        self.tool, self.path, self.message = tool, path, message
        super().__init__(f"tool {tool!r}: {path or '(root)'}: {message}")


@dataclass(frozen=True)
class Rewrite:
    tool: str
    path: str
    note: str

    def __str__(self) -> str:
        return f"tool {self.tool!r}: {self.path or '(root)'}: {self.note}"


def _fits(value: Any, t: str) -> bool:
    if isinstance(value, bool) and t in ("integer", "number"):
        return False
    return isinstance(value, _PY[t])


def normalise_schema(schema: Any, tool: str = "?") -> tuple[dict[str, Any], list[Rewrite]]:
    """A valid JSON Schema for the tool's arguments and the rewrites made; raises :class:`SchemaRejected`."""
    notes: list[Rewrite] = []
    if schema is None:
        schema = {"type": "object"}
    if not isinstance(schema, dict):
        raise SchemaRejected(tool, "", "the parameters schema must be an object")
    out = copy.deepcopy(schema)
    _walk(out, "", tool, notes)
    if "type" not in out and ("properties" in out or not set(out) - {"$schema", "description", "title"}):
        out["type"] = "object"
        notes.append(Rewrite(tool, "", "added type 'object' at the top level"))
    if out.get("type") != "object":
        raise SchemaRejected(tool, "type", f"tool arguments must be an object, not {out.get('type')!r}")
    try:
        validator(out, check=True)
    except SchemaError as e:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.path).lstrip(".")
        raise SchemaRejected(tool, path, e.message) from None
    except UntranslatablePattern as e:
        why = f"cannot read pattern {e.pattern[:80]!r} as ECMA-262 does: {e.reason}"
        raise SchemaRejected(tool, e.path, why) from None
    return out, notes


def _walk(node: Any, path: str, tool: str, notes: list[Rewrite]) -> None:
    if not isinstance(node, dict):
        return
    at = path or ""

    def note(text: str) -> None:
        notes.append(Rewrite(tool, at, text))

    if "type" in node:
        node_type = node["type"]
        names = node_type if isinstance(node_type, list) else [node_type]
        mapped: list[str] = []
        anything = False
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise SchemaRejected(tool, _join(at, "type"), f"type must be a type name, not {name!r}")
            key = name.strip().lower()
            if key not in TYPE_NAMES:
                raise SchemaRejected(tool, _join(at, "type"), f"unknown type {name!r}")
            target = TYPE_NAMES[key]
            if target is None:
                anything = True
            elif target not in mapped:
                mapped.append(target)
            if target != name:
                note(f"type {name!r} read as {target or 'any type'!r}")
        if anything:
            del node["type"]
        elif mapped != names:
            node["type"] = mapped[0] if len(mapped) == 1 and not isinstance(node_type, list) else mapped
    if "optional" in node and not isinstance(node.get("optional"), dict):
        del node["optional"]
        note("dropped the non-standard 'optional' keyword")
    if "nullable" in node:
        nullable = node.pop("nullable")
        if nullable is True and "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if "null" not in types:
                node["type"] = [*types, "null"]
        note("folded OpenAPI 'nullable' into type")
    types = node.get("type")
    types = types if isinstance(types, list) else [types] if isinstance(types, str) else []
    if "default" in node and types and not any(_fits(node["default"], t) for t in types):
        del node["default"]
        note("dropped a default that contradicts the type")
    if "enum" in node and types and isinstance(node["enum"], list):
        bad = [v for v in node["enum"] if not any(_fits(v, t) for t in types)]
        if bad:
            raise SchemaRejected(tool, _join(at, "enum"), f"enum value {bad[0]!r} contradicts type {node['type']!r}")
    if isinstance(node.get("required"), list) and isinstance(node.get("properties"), dict):
        missing = [k for k in node["required"] if k not in node["properties"]]
        if missing and node.get("additionalProperties") is False:
            raise SchemaRejected(tool, _join(at, "required"),
                                 f"requires {missing[0]!r}, which no property declares and none may be added")
    for key in _ONE:
        if isinstance(node.get(key), dict):
            _walk(node[key], _join(at, key), tool, notes)
    for key in _LIST:
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                _walk(sub, f"{_join(at, key)}[{i}]", tool, notes)
    if isinstance(node.get("items"), list):
        for i, sub in enumerate(node["items"]):
            _walk(sub, f"{_join(at, 'items')}[{i}]", tool, notes)
    for key in _MAP:
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                _walk(sub, _join(_join(at, key), name), tool, notes)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def normalise_tools(tools: Iterable[Tool]) -> tuple[tuple[Tool, ...], list[Rewrite], list[SchemaRejected]]:
    """Normalise every tool: ``(kept, rewrites, rejected)``; a rejected tool is left out, not fatal."""
    kept, notes, rejected = [], [], []
    for tool in tools:
        try:
            schema, rewrites = normalise_schema(tool.parameters, tool.name)
        except SchemaRejected as e:
            rejected.append(e)
            continue
        kept.append(Tool(tool.name, schema))
        notes.extend(rewrites)
    return tuple(kept), notes, rejected
