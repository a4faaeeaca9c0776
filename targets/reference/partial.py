"""The reference partial JSON parser: what may be shown of a JSON text that is still arriving.

``parse(prefix)`` returns the value the prefix already settles, and nothing
it does not (docs/contract.md, "Partial parsers"):

* an object or array as soon as it opens, with the members and elements
  that have begun; a member only once its key is closed and its value has
  begun;
* a string that is still open as the part of it whose escapes are complete
  (never a backslash alone, never ``\\u00`` raw, never the first half of a
  surrogate pair without the second);
* a number only once something follows it (``1`` may become ``10``), and
  ``true``, ``false``, ``null`` only when whole.

A value the prefix holds nothing of yet is left out; a prefix of white space
is ``None``.  Text that is no prefix of any JSON text raises ``ValueError``.
It is judged like every other partial parser (``reference-partial``) and
must never diverge.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse", "MISSING"]

_WS = " \t\n\r"
_NUMBER = frozenset("+-0123456789.eE")
_LITERALS = {"t": "true", "f": "false", "n": "null"}


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: What a value the prefix has not settled is: not shown.
MISSING: Any = _Missing()


def parse(prefix: str) -> Any:
    value, at, _ = _value(prefix, _skip(prefix, 0))
    if value is MISSING:
        return None
    if _skip(prefix, at) != len(prefix):
        raise ValueError(f"extra text at {at}")
    return value


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WS:
        at += 1
    return at


def _value(text: str, at: int) -> tuple[Any, int, bool]:
    """The value starting at ``at``, where it ends, and whether it is complete (MISSING if not settled)."""
    if at >= len(text):
        return MISSING, at, False
    c = text[at]
    if c == "{":
        return _object(text, at + 1)
    if c == "[":
        return _array(text, at + 1)
    if c == '"':
        return _string(text, at + 1)
    if c in _LITERALS:
        word = _LITERALS[c]
        piece = text[at:at + len(word)]
        if piece == word:
            return json.loads(word), at + len(word), True
        if word.startswith(piece) and at + len(piece) == len(text):
            return MISSING, len(text), False
        raise ValueError(f"not a literal at {at}")
    if c in _NUMBER:
        end = at
        while end < len(text) and text[end] in _NUMBER:
            end += 1
        if end == len(text):
            return MISSING, end, False  # more digits may follow
        return json.loads(text[at:end]), end, True
    raise ValueError(f"unexpected {c!r} at {at}")


def _object(text: str, at: int) -> tuple[Any, int, bool]:
    out: dict[str, Any] = {}
    at = _skip(text, at)
    if at < len(text) and text[at] == "}":
        return out, at + 1, True
    while True:
        if at >= len(text):
            return out, at, False
        if text[at] != '"':
            raise ValueError(f"expected a key at {at}")
        key, at, closed = _string(text, at + 1)
        if not closed:
            return out, at, False
        at = _skip(text, at)
        if at >= len(text):
            return out, at, False
        if text[at] != ":":
            raise ValueError(f"expected ':' at {at}")
        value, at, complete = _value(text, _skip(text, at + 1))
        if value is MISSING:
            return out, at, False
        out[key] = value
        if not complete:
            return out, at, False
        at = _skip(text, at)
        if at >= len(text):
            return out, at, False
        if text[at] == "}":
            return out, at + 1, True
        if text[at] != ",":
            raise ValueError(f"expected ',' or '}}' at {at}")
        at = _skip(text, at + 1)


def _array(text: str, at: int) -> tuple[Any, int, bool]:
    out: list[Any] = []
    at = _skip(text, at)
    if at < len(text) and text[at] == "]":
        return out, at + 1, True
    while True:
        value, at, complete = _value(text, at)
        if value is MISSING:
            return out, at, False
        out.append(value)
        if not complete:
            return out, at, False
        at = _skip(text, at)
        if at >= len(text):
            return out, at, False
        if text[at] == "]":
            return out, at + 1, True
        if text[at] != ",":
            raise ValueError(f"expected ',' or ']' at {at}")
        at = _skip(text, at + 1)


def _string(text: str, at: int) -> tuple[str, int, bool]:
    """The string whose content starts at ``at``: closed, or as much of it as its complete escapes give."""
    i = at
    while i < len(text):
        c = text[i]
        if c == '"':
            return json.loads(text[at - 1:i + 1]), i + 1, True
        if c == "\\":
            step = 6 if text[i + 1:i + 2] == "u" else 2
            if i + step > len(text):
                break  # an escape cut short: show the string up to its backslash
            i += step
        else:
            i += 1
    shown = json.loads(f'"{text[at:i]}"')
    if shown and "\ud800" <= shown[-1] <= "\udbff":
        shown = shown[:-1]  # the first half of a pair whose second half has not arrived
    return shown, len(text), False
