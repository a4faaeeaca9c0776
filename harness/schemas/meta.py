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

import hashlib
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
#: The same verdicts by the schema's text: fixtures loaded from files hold equal schemas in objects of their own
#: (loading findings/, 251 fixtures, took 3.7 s with the check made again for each copy, and takes 0.3 s).
_by_text: dict[bytes, SchemaError | None] = {}
_HELD = 256


def schema_error(schema: Any) -> SchemaError | None:
    """The metaschema's first complaint about ``schema`` (a dict or a boolean), or None when it is valid.

    Remembered for the schema object itself, the cases of a run sharing their tools' schemas, and for its text.
    """
    held = _checked.get(id(schema))
    if held is not None and held[0] is schema:
        return held[1]
    text = _text(schema)
    if text is not None and text in _by_text:
        error = _by_text[text]
        _remember(schema, error, None)
        return error
    cls = validator_for(schema, default=Draft202012Validator)
    error = None
    try:
        cls.check_schema(_shapes(schema))
    except SchemaError:
        try:
            cls.check_schema(schema)
        except SchemaError as e:
            error = e
    _remember(schema, error, text)
    return error


def _remember(schema: Any, error: SchemaError | None, text: bytes | None) -> None:
    for held in (_checked, _by_text):
        if len(held) >= _HELD:
            held.clear()
    _checked[id(schema)] = (schema, error)
    if text is not None:
        _by_text[text] = error


def _text(schema: Any) -> bytes | None:
    """A digest of ``schema``'s JSON text, keys in their order (the first complaint can depend on it), or None for
    a schema holding anything but JSON's own types: a tuple would read as the list it writes as, which the
    metaschema does not take for an array."""
    if not _plain(schema):
        return None
    return hashlib.blake2b(json.dumps(schema, ensure_ascii=False).encode("utf-8", "surrogatepass"),
                           digest_size=20).digest()


def _plain(node: Any) -> bool:
    if isinstance(node, dict):
        return all(type(k) is str and _plain(v) for k, v in node.items())
    if type(node) is list:
        return all(_plain(v) for v in node)
    return node is None or type(node) in (str, int, float, bool)


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
