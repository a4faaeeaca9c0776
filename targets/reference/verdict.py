"""The status of a finished call: parse its completed arguments once, then check them.

This runs only after the stream has said a call is finished.  Nothing here
is reached while fragments are still arriving, so a fragment that happens to
be valid JSON (``{"a": 1}`` before ``, "b": 2}``) is never taken for a call.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from toolfuzz.schemas.patterns import UntranslatablePattern, validator
from toolfuzz.vocabulary import COMPLETE, INVALID_JSON, SCHEMA_INVALID, UNKNOWN_TOOL, Tool

__all__ = ["ToolBook", "parse_arguments", "join_surrogates"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_WS = " \t\n\r"


class _NotJSON(ValueError):
    pass


def _reject_constant(token: str) -> Any:
    raise _NotJSON(f"{token} is not JSON")


def join_surrogates(text: str) -> str:
    """Pair UTF-16 halves that arrived in separate fragments into one character.

    A server that slices JavaScript strings can cut a character between its
    two UTF-16 halves; each fragment's JSON then carries a lone ``\\udXXX``
    escape.  Concatenated, the halves are one character, which is what the
    model wrote.  A half with no partner cannot be written as UTF-8 and
    becomes U+FFFD.
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def parse_arguments(arguments: str) -> Any:
    """The value of a completed arguments string; raises ValueError if it is not one JSON text.

    An empty (or all white space) string means "no arguments" and parses as
    ``{}``: servers send nothing at all for a tool without parameters.
    Integers keep every digit (no float rounding past 64 bits), and NaN or
    Infinity are not JSON.
    """
    if not arguments.strip(_JSON_WS):
        return {}
    return json.loads(arguments, parse_constant=_reject_constant)


class ToolBook:
    """The tools a request offered, each with its schema compiled once."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._validators: dict[str, Any] = {}
        tools = tuple(tools)
        if tools:
            # Here, not at the top: jsonschema takes longer to import than `toolfuzz assemble` takes to
            # start, and a stream assembled without tools never validates anything.
            from jsonschema.exceptions import SchemaError
        for tool in tools:
            schema: Mapping[str, Any] = tool.parameters
            try:
                # Its patterns read as ECMA-262 reads them (toolfuzz.schemas.patterns).
                self._validators[tool.name] = validator(schema, check=True)
            except SchemaError as e:
                path = "/".join(str(p) for p in e.path) or "(root)"
                raise ValueError(f"tool {tool.name!r}: invalid parameters schema at {path}: {e.message}") from None
            except UntranslatablePattern as e:
                raise ValueError(f"tool {tool.name!r}: {e}") from None

    def __bool__(self) -> bool:
        return bool(self._validators)

    def status(self, name: str | None, arguments: str) -> str:
        """complete, invalid_json, unknown_tool or schema_invalid, for a finished call."""
        try:
            value = parse_arguments(arguments)
        except (ValueError, RecursionError):
            return INVALID_JSON
        if not self._validators:
            return COMPLETE
        validator = self._validators.get(name) if name is not None else None
        if validator is None:
            return UNKNOWN_TOOL
        return COMPLETE if validator.is_valid(value) else SCHEMA_INVALID
