"""Whether a schema is a valid JSON Schema: its metaschema's check, fast on a schema of many alike parts.

jsonschema checks a schema against its draft's metaschema part by part, at
a quarter to half a millisecond a subschema under Draft 2020-12: a tool
schema of 45,000 properties took 10 s or more, and it was checked twice on
loading and once more for each reference assembler built on it.  The check here gives the
same answer from the schema's distinct shapes: a title, a description or a
comment is only ever required to be a string, and the names of
``properties`` (or ``$defs``...) only to be names, so the metaschema says of
``{"a": {"type": "string", "description": "x"}, "b": {"type": "string",
"description": "y"}}`` what it says of one of them.  Only when that check
fails is the whole schema checked, so that the error names the real place.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

__all__ = ["schema_error", "ONE", "LIST", "MAP"]

#: Keywords whose value is one schema, a list of schemas or a map of schemas.
ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
       "additionalItems", "unevaluatedProperties", "unevaluatedItems")
LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
#: Annotations every draft's metaschema asks only to be strings.
_TEXTS = ("title", "description", "$comment")
#: Maps whose names the metaschemas say nothing of (patternProperties' must be regular expressions).
_NAMES_FREE = frozenset(MAP) - {"patternProperties"}

_checked: dict[int, tuple[Any, SchemaError | None]] = {}


def schema_error(schema: Any) -> SchemaError | None:
    """The metaschema's first complaint about ``schema`` (a dict or a boolean), or None when it is valid.

    Remembered for the schema object itself: the cases of a run share their tools' schemas.
    """
    held = _checked.get(id(schema))
    if held is not None and held[0] is schema:
        return held[1]
    cls = validator_for(schema, default=Draft202012Validator)
    error = None
    try:
        cls.check_schema(_shapes(schema))
    except SchemaError:
        try:
            cls.check_schema(schema)
        except SchemaError as e:
            error = e
    if len(_checked) >= 256:
        _checked.clear()
    _checked[id(schema)] = (schema, error)
    return error


def _shapes(node: Any) -> Any:
    """``node`` with its annotation texts emptied and each map of subschemas down to one of each shape."""
    if not isinstance(node, dict):
        return node
    out = dict(node)
    for key in _TEXTS:
        if isinstance(out.get(key), str):
            out[key] = ""
    for key in ONE:
        if isinstance(out.get(key), dict):
            out[key] = _shapes(out[key])
    for key in (*LIST, "items"):
        if isinstance(out.get(key), list):
            out[key] = [_shapes(sub) for sub in out[key]]
    for key in MAP:
        if not isinstance(out.get(key), dict):
            continue
        subs = {name: _shapes(sub) for name, sub in out[key].items()}
        if key in _NAMES_FREE:
            seen: dict[str, str] = {}
            for name, sub in subs.items():
                seen.setdefault(json.dumps(sub, sort_keys=True, default=repr), name)
            subs = {name: subs[name] for name in seen.values()}
        out[key] = subs
    return out
