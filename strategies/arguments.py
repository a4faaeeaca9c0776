"""Arguments for a tool: valid values of its parameters schema.

Two paths.  The common subset of tool schemas (objects, arrays, scalars,
enum, const, local ``$ref``, anyOf/oneOf, allOf, bounds, lengths, pattern,
the usual formats) is compiled here into strategies that draw adversarial
values directly.  Anything else goes to hypothesis-jsonschema, which is
complete but about five times slower and knows nothing about what breaks
assemblers.  Both paths end in a jsonschema check, so a value that reaches
a case is valid whatever either path got wrong.

hypothesis-jsonschema 0.23.1 cannot draw an object with Hypothesis 6.170.10
or later, and toolfuzz must not hold a user's Hypothesis back.  So whether
it can draw is asked once (:func:`fallback_problem`); where it cannot, a
schema outside the subset is drawn by the fast path with the keywords it
does not draw by left to the validity check (``multipleOf``, ``not``,
``if``...), and one the fast path cannot draw at all is reported per tool
(:mod:`toolfuzz.strategies.usable`), naming both versions.

Open objects are generated closed: no undeclared keys.  Tool arguments
almost never carry them, and leaving them out was measured at 4.4 times
faster generation (docs/strategies.md).
"""

from __future__ import annotations

import copy
import functools
import json
from functools import lru_cache
from typing import Any, Callable, Mapping

from hypothesis import reject, strategies as st

from toolfuzz.schemas.patterns import python_pattern, python_schema, validator as ecma_validator
from toolfuzz.strategies.stage import Drawer, boolean, integer, opaque, pick, stage
from toolfuzz.vocabulary import Tool
from toolfuzz.strategies.formats import FORMATS
from toolfuzz.strategies.values import integers, json_values, numbers, strings

__all__ = ["tool_arguments", "schema_values", "compile_schema", "Unsupported", "validator", "fallback_problem"]

_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
#: Keywords that only annotate: they never change which values are valid.
_ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated",
    "readOnly", "writeOnly", "$defs", "definitions", "contentMediaType", "contentEncoding",
})
_HANDLED = _ANNOTATIONS | frozenset({
    "type", "enum", "const", "$ref", "anyOf", "oneOf", "properties", "required",
    "additionalProperties", "maxProperties", "items", "minItems", "maxItems", "uniqueItems",
    "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "allOf",
})
#: Keywords the fast path does not draw by but may leave to the validity check every value passes: only
#: where hypothesis-jsonschema cannot draw (then some of these schemas draw slowly, or not at all).
_FILTERED = frozenset({
    "multipleOf", "not", "if", "then", "else", "minProperties", "patternProperties", "propertyNames",
    "dependentRequired", "dependentSchemas", "dependencies", "contains", "minContains", "maxContains",
    "unevaluatedProperties", "unevaluatedItems",
})
#: Optional properties a drawn object holds at most.  A model fills in the fields a call needs, not every one
#: of the 45,000 a generated schema may declare: half of those, drawn, made arguments of megabytes and cases of
#: hundreds.  Above every bundled tool's count (4), so that their draws are what they were.
MOST_OPTIONAL = 32
_LOWER_BOUNDS = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER_BOUNDS = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})


class Unsupported(Exception):
    """The schema uses something the fast path does not compile."""


def validator(schema: Mapping[str, Any]) -> Any:
    # The reference's own (toolfuzz.schemas.patterns): patterns read as ECMA-262 reads them, no formats asserted.
    return ecma_validator(schema)


def _freeze(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, sort_keys=True)


Gen = Callable[[Any], Any]  # draws one value through toolfuzz.strategies.stage


@lru_cache(maxsize=512)
def _cached(frozen: str) -> st.SearchStrategy[Any]:
    schema = json.loads(frozen)
    check = validator(schema)

    def ok(value: Any) -> bool:
        return _writable(value) and check.is_valid(value)

    try:
        gen = compile_schema(schema)
    except Unsupported:
        problem = fallback_problem()
        if problem is None:
            from hypothesis_jsonschema import from_schema

            # hypothesis-jsonschema knows the date and time formats but not uuid.
            # Handed the patterns as Python reads them: it compiles and draws them with re.
            fallback = from_schema(python_schema(schema), custom_formats={"uuid": FORMATS["uuid"]}).filter(ok)
            return _valid_values(functools.partial(opaque, strategy=fallback), ok, fallback)
        try:
            gen = compile_schema(schema, lenient=True)
        except Unsupported as e:
            raise Unsupported(f"{e}: outside toolfuzz's own subset, and {problem}") from None
    fallback = st.composite(lambda draw: gen(draw))().filter(ok)
    return _valid_values(gen, ok, fallback)


_PROBE = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


@functools.cache
def fallback_problem() -> str | None:
    """Why hypothesis-jsonschema cannot draw with the installed Hypothesis, or None when it can.

    from_schema() itself never fails; only a draw tells, so this draws once from a small object schema.
    """
    from importlib.metadata import version

    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis_jsonschema import from_schema

    try:
        find(from_schema(_PROBE), lambda _: True,
             settings=settings(max_examples=1, database=None, derandomize=True, phases=[Phase.generate],
                               deadline=None, suppress_health_check=list(HealthCheck)))
    except Exception as e:  # noqa: BLE001 - any failure means it cannot be used here
        return (f"hypothesis-jsonschema {version('hypothesis-jsonschema')} cannot draw an object with hypothesis "
                f"{version('hypothesis')} ({type(e).__name__}: {e})")
    return None


@stage
def _valid_values(draw: Any, gen: Gen, ok: Callable[[Any], bool], fallback: st.SearchStrategy[Any]) -> Any:
    # Both paths end in a jsonschema check: a value that reaches a case is valid
    # whatever either path got wrong.
    for _ in range(3):
        value = gen(draw)
        if ok(value):
            return value
    if type(draw) is Drawer:
        return opaque(draw, fallback)
    reject()


def _writable(value: Any) -> bool:
    # A lone surrogate (st.from_regex can draw one for a `pattern`) is valid
    # JSON only as an escape; written raw it cannot reach a UTF-8 wire, and
    # no server sends it.  Such values are not arguments a model produces.
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def schema_values(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Valid values of a JSON schema, compiled once per distinct schema."""
    return _cached(_freeze(schema))


def tool_arguments(tool: Tool) -> st.SearchStrategy[Any]:
    """Valid arguments for one tool: usually an object, shrinking toward the fewest, plainest fields."""
    return schema_values(tool.parameters)


def compile_schema(schema: Mapping[str, Any], lenient: bool = False) -> Gen:
    """The fast path; raises :class:`Unsupported` for schemas outside its subset.

    ``lenient``: keywords it does not draw by but a validity check can enforce (``multipleOf``, ``not``...)
    are left to that check instead of being unsupported.
    """
    return _Compiler(schema, lenient).compile(schema, ())


class _Compiler:
    def __init__(self, root: Mapping[str, Any], lenient: bool = False) -> None:
        self.root = root
        self.handled = _HANDLED | _FILTERED if lenient else _HANDLED

    def resolve(self, ref: str, active: tuple[str, ...]) -> Mapping[str, Any]:
        if not ref.startswith("#"):
            raise Unsupported(f"remote $ref {ref}")
        if ref in active:
            raise Unsupported(f"recursive $ref {ref}")
        node: Any = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, list) and part.isdigit():
                node = node[int(part)]
            elif isinstance(node, dict) and part in node:
                node = node[part]
            else:
                raise Unsupported(f"unresolvable $ref {ref}")
        if not isinstance(node, (dict, bool)):
            raise Unsupported(f"$ref {ref} is not a schema")
        return node

    def compile(self, schema: Any, active: tuple[str, ...]) -> Gen:
        if schema is True or schema == {}:
            return json_values.draw
        if schema is False or not isinstance(schema, dict):
            raise Unsupported("false schema")
        unknown = set(schema) - self.handled
        if unknown:
            raise Unsupported(f"keywords {sorted(unknown)}")
        if "allOf" in schema or ("$ref" in schema and set(schema) - _ANNOTATIONS - {"$ref"}):
            return self.compile(*self.merged(schema, active))
        if "$ref" in schema:
            ref = schema["$ref"]
            return self.compile(self.resolve(ref, active), (*active, ref))
        if "const" in schema:
            const = schema["const"]
            return lambda draw: copy.deepcopy(const)
        if "enum" in schema:
            choices = list(schema["enum"])
            if not choices:
                raise Unsupported("empty enum")
            return lambda draw: copy.deepcopy(pick(draw, choices))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest = {k: v for k, v in schema.items() if k != key and k not in _ANNOTATIONS}
                # Siblings apply to every branch; the final validity filter
                # enforces oneOf's "exactly one".
                branches = [self.compile({**rest, **b} if isinstance(b, dict) else b, active)
                            for b in schema[key]]
                return _one_of(branches)
        types = schema.get("type")
        if types is None:
            if "properties" in schema or "required" in schema:
                types = ["object"]
            elif "items" in schema:
                types = ["array"]
            elif {"minLength", "maxLength", "pattern", "format"} & set(schema):
                types = ["string"]
            elif {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} & set(schema):
                types = ["number"]
            else:
                return json_values.draw
        if isinstance(types, str):
            types = [types]
        if not types or any(t not in _TYPES for t in types):
            raise Unsupported(f"type {types}")
        return _one_of([self.typed(t, schema, active) for t in types])

    def merged(self, schema: dict[str, Any], active: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
        """``schema``'s allOf (and a ``$ref`` beside other keywords) merged into one schema: properties and
        required joined, types met, the tighter bound kept.  Close enough to draw from, since every value
        is checked against the schema itself after."""
        parts: list[Any] = [{k: v for k, v in schema.items() if k not in ("allOf", "$ref")}]
        if "$ref" in schema:
            parts.append({"$ref": schema["$ref"]})
        parts.extend(schema.get("allOf", ()))
        out: dict[str, Any] = {}
        for part in parts:
            while isinstance(part, dict) and "$ref" in part and not set(part) - _ANNOTATIONS - {"$ref"}:
                ref = part["$ref"]
                part, active = self.resolve(ref, active), (*active, ref)
            if part is True:
                continue
            if not isinstance(part, dict):
                raise Unsupported("false schema in allOf")
            if "allOf" in part or "$ref" in part:
                part, active = self.merged(part, active)
            out = _merge(out, part)
        return out, active

    def typed(self, t: str, schema: dict[str, Any], active: tuple[str, ...]) -> Gen:
        if t == "null":
            return lambda draw: None
        if t == "boolean":
            return boolean
        if t == "integer":
            return functools.partial(integers.draw, schema=schema)
        if t == "number":
            return functools.partial(numbers.draw, schema=schema)
        if t == "string":
            return self.string(schema)
        if t == "array":
            return self.array(schema, active)
        return self.object(schema, active)

    def string(self, schema: dict[str, Any]) -> Gen:
        lo, hi = schema.get("minLength", 0), schema.get("maxLength")
        if "pattern" in schema:
            # JSON Schema patterns search, they do not match the whole string,
            # which is exactly what from_regex draws without fullmatch; read as ECMA-262 reads them ($ is
            # the end, never before a final newline).
            base = st.from_regex(python_pattern(schema["pattern"]))
            return functools.partial(opaque, strategy=base.filter(lambda s: lo <= len(s) and (hi is None or len(s) <= hi)))
        fmt = FORMATS.get(schema.get("format", ""))
        if fmt is not None:
            return functools.partial(opaque, strategy=fmt.filter(lambda s: lo <= len(s) and (hi is None or len(s) <= hi)))
        return functools.partial(strings.draw, min_size=lo, max_size=hi)

    def array(self, schema: dict[str, Any], active: tuple[str, ...]) -> Gen:
        items = schema.get("items", True)
        if isinstance(items, list):
            raise Unsupported("tuple items")
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", lo + 4)
        if hi < lo:
            raise Unsupported("maxItems below minItems")
        return functools.partial(_lists, element=self.compile(items, active), lo=lo, hi=hi,
                                 unique=bool(schema.get("uniqueItems")))

    def object(self, schema: dict[str, Any], active: tuple[str, ...]) -> Gen:
        properties = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in properties]
        if len(required) != len(schema.get("required", [])):
            raise Unsupported("required names an undeclared property")
        fields = {k: self.compile(v, active) for k, v in properties.items()}
        extra = schema.get("additionalProperties")
        most = schema.get("maxProperties")
        if not properties and isinstance(extra, dict):
            # A map: its keys are data, so they may be anything.
            return functools.partial(_maps, value=self.compile(extra, active),
                                     most=min(4, most if most is not None else 4))
        if not properties and extra is not False and "additionalProperties" not in schema:
            if most is None:
                return functools.partial(_maps, value=json_values.draw, most=3)
        if most is not None and most < len(required):
            raise Unsupported("maxProperties below required")
        optional = tuple(k for k in fields if k not in required)
        if len(optional) > MOST_OPTIONAL:
            return functools.partial(_many_fields, fields=fields, required=frozenset(required), optional=optional,
                                     most=most)
        return functools.partial(_objects, fields=fields, required=frozenset(required), most=most)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if key not in out or key in _ANNOTATIONS:
            out.setdefault(key, value)
        elif key == "properties":
            out[key] = {**out[key], **{name: {"allOf": [out[key][name], sub]} if name in out[key] else sub
                                       for name, sub in value.items()}}
        elif key == "required":
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key == "type":
            mine = [out[key]] if isinstance(out[key], str) else out[key]
            theirs = [value] if isinstance(value, str) else value
            met = [t for t in mine if t in theirs or (t == "integer" and "number" in theirs)] + \
                [t for t in theirs if t == "integer" and "number" in mine and t not in mine]
            if not met:
                raise Unsupported(f"allOf of types {mine} and {theirs}, which never meet")
            out[key] = met
        elif key == "enum":
            out[key] = [v for v in out[key] if v in value]
        elif key in _LOWER_BOUNDS:
            out[key] = max(out[key], value)
        elif key in _UPPER_BOUNDS:
            out[key] = min(out[key], value)
        elif out[key] != value:
            raise Unsupported(f"allOf with two different {key}")
    return out


def _one_of(branches: list[Gen]) -> Gen:
    if len(branches) == 1:
        return branches[0]
    return lambda draw: pick(draw, branches)(draw)


def _lists(draw: Any, element: Gen, lo: int, hi: int, unique: bool) -> list[Any]:
    n = integer(draw, lo, hi)
    out: list[Any] = []
    seen: set[str] = set()
    for _ in range(n if not unique else 2 * n):
        if len(out) == n:
            break
        value = element(draw)
        if unique:
            # uniqueItems compares JSON values: 1 and 1.0 are the same item, so are equal objects.
            mark = json.dumps(value, sort_keys=True)
            if mark in seen:
                continue
            seen.add(mark)
        out.append(value)
    return out


def _maps(draw: Any, value: Gen, most: int) -> dict[str, Any]:
    # A map: its keys are data, so they may be anything.
    return {strings.draw(draw, 0, 24): value(draw) for _ in range(integer(draw, 0, most))}


def _many_fields(draw: Any, fields: dict[str, Gen], required: frozenset[str], optional: tuple[str, ...],
                 most: int | None) -> dict[str, Any]:
    """An object of a schema with more than MOST_OPTIONAL optional properties: the required ones, and up to
    MOST_OPTIONAL of the others, picked from all of them (not the first few), in the schema's order."""
    room = MOST_OPTIONAL if most is None else min(MOST_OPTIONAL, most - len(required))
    chosen = {optional[integer(draw, 0, len(optional) - 1)] for _ in range(integer(draw, 0, room))}
    return {key: gen(draw) for key, gen in fields.items() if key in required or key in chosen}


def _objects(draw: Any, fields: dict[str, Gen], required: frozenset[str], most: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    room = None if most is None else most - len(required)
    for key, gen in fields.items():
        if key not in required:
            if room == 0 or not boolean(draw):
                continue
            if room is not None:
                room -= 1
        out[key] = gen(draw)
    return out
