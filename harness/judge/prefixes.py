"""Which prefixes of a call's argument text a partial parser is handed, and where each value of the text lies.

Theory of operation
-------------------
A partial parser (level ``partial``, docs/levels.md) is judged on prefixes of
one complete argument text.  Which prefixes is the harness's choice, made
from what the case knows by construction, never from a contestant:

* every place the stream cut the text into fragments (``Call.cuts``), since
  that is where a consumer parsing as the text grows really stops;
* every hard place of the text's own grammar: inside and right after a key,
  right after a backslash, inside ``\\uXXXX``, between the two escapes of a
  surrogate pair, inside a number (``-``, ``1.``, ``1e``), inside ``true``,
  ``false`` and ``null``, right after ``{``, ``[``, ``:`` and ``,``;
* the complete text.

The text is read once into a tree of :class:`Node` spans (start and end
offsets of every value and key, in code points) together with the value
``json.loads`` gives it.  The judge (``toolfuzz.judge.compare_partial``)
asks of a node whether a prefix has not reached it, is inside it, or holds
all of it: that, and not any parser's view, decides what a value may look
like at that prefix.

A text is judged only if the stream finished its call and it is one JSON
object (what a tool's arguments are) with no repeated key (``json.loads`` would keep the last of two equal
keys, so no prefix could be judged against it).  Past :data:`MAX_PREFIXES`
prefixes, or past :data:`PARSE_BUDGET` characters in all, the union is
thinned evenly, the cuts kept first: parsing every prefix is quadratic in
the text's length.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from toolfuzz.vocabulary import COMPLETE, SCHEMA_INVALID, UNKNOWN_TOOL, Outcome

__all__ = ["MAX_PREFIXES", "PARSE_BUDGET", "Node", "Text", "texts_of", "read_tree", "prefixes_of"]

#: At most this many prefixes of one text are parsed,
MAX_PREFIXES = 384
#: and at most about this many characters in all (a 10 KB text gets 25 prefixes, a 600-character one 384).
PARSE_BUDGET = 256 * 1024
#: Statuses of calls whose text the stream finished and which parse as JSON.
_JUDGED = (COMPLETE, UNKNOWN_TOOL, SCHEMA_INVALID)
_WS = " \t\n\r"


@dataclass(frozen=True, slots=True)
class Node:
    """One value of the text: its kind, its span ``[start, end)`` and its final value.

    ``keys`` (objects only) holds each key with its span, quotes included, in the order of the text;
    ``children`` the member values (objects) or elements (arrays) in the same order.
    """

    kind: str  # "object", "array", "string", "number", "literal"
    start: int
    end: int
    value: Any
    keys: tuple[tuple[str, int, int], ...] = ()
    children: tuple["Node", ...] = ()


@dataclass(frozen=True, slots=True)
class Text:
    """One call's argument text as the partial level judges it: which call, the tree, the prefixes."""

    choice: int
    index: int
    text: str
    tree: Node
    prefixes: tuple[int, ...]


def texts_of(expected: Outcome) -> tuple[Text, ...]:
    """The argument texts of a case's ``expected`` outcome a partial parser is judged on, each with its
    prefixes (lengths)."""
    out = []
    for call in expected.calls:
        if call.status not in _JUDGED or not call.arguments.strip(_WS):
            continue
        tree = read_tree(call.arguments)
        if tree is None or tree.kind != "object":
            continue  # tool arguments are an object: a call whose text is another value is not judged
        out.append(Text(call.choice, call.index, call.arguments, tree, prefixes_of(call.arguments, call.cuts)))
    return tuple(out)


class _Repeated(ValueError):
    pass


@functools.lru_cache(maxsize=1024)
def read_tree(text: str) -> Node | None:
    """The span tree of ``text``, or None if it is not one JSON text without repeated keys."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return None
    try:
        node, at = _value(text, _skip(text, 0))
    except (_Repeated, RecursionError):
        return None
    return node if _skip(text, at) == len(text) else None


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WS:
        at += 1
    return at


def _value(text: str, at: int) -> tuple[Node, int]:
    c = text[at]
    if c == "{":
        return _object(text, at)
    if c == "[":
        return _array(text, at)
    if c == '"':
        end = _string_end(text, at)
        return Node("string", at, end, json.loads(text[at:end])), end
    if c in "tfn":
        word = {"t": "true", "f": "false", "n": "null"}[c]
        end = at + len(word)
        return Node("literal", at, end, json.loads(word)), end
    end = at
    while end < len(text) and text[end] in "+-0123456789.eE":
        end += 1
    return Node("number", at, end, json.loads(text[at:end])), end


def _string_end(text: str, at: int) -> int:
    i = at + 1
    while text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _object(text: str, start: int) -> tuple[Node, int]:
    keys, children, value = [], [], {}
    at = _skip(text, start + 1)
    if text[at] == "}":
        return Node("object", start, at + 1, value), at + 1
    while True:
        key_start, key_end = at, _string_end(text, at)
        key = json.loads(text[key_start:key_end])
        if key in value:
            raise _Repeated(key)
        at = _skip(text, _skip(text, key_end) + 1)  # past the colon
        child, at = _value(text, at)
        keys.append((key, key_start, key_end))
        children.append(child)
        value[key] = child.value
        at = _skip(text, at)
        if text[at] == "}":
            return Node("object", start, at + 1, value, tuple(keys), tuple(children)), at + 1
        at = _skip(text, at + 1)  # past the comma


def _array(text: str, start: int) -> tuple[Node, int]:
    children = []
    at = _skip(text, start + 1)
    if text[at] == "]":
        return Node("array", start, at + 1, []), at + 1
    while True:
        child, at = _value(text, at)
        children.append(child)
        at = _skip(text, at)
        if text[at] == "]":
            return Node("array", start, at + 1, [c.value for c in children], (), tuple(children)), at + 1
        at = _skip(text, at + 1)


@functools.lru_cache(maxsize=1024)
def prefixes_of(text: str, cuts: tuple[int, ...] = ()) -> tuple[int, ...]:
    """The prefix lengths a partial parser is handed for ``text``: the cuts, the hard places, the whole."""
    tree = read_tree(text)
    hard: set[int] = set()
    if tree is not None:
        _hard_places(text, tree, hard)
    n = len(text)
    chosen = sorted({c for c in cuts if 0 < c < n})
    rest = sorted(h for h in hard if 0 < h < n and h not in set(chosen))
    room = max(8, min(MAX_PREFIXES, PARSE_BUDGET // max(n, 1))) - 1
    if len(chosen) > room:
        chosen = _thinned(chosen, room)
    if len(chosen) + len(rest) > room:
        rest = _thinned(rest, room - len(chosen))
    return tuple(sorted({*chosen, *rest, n}))


def _thinned(offsets: list[int], keep: int) -> list[int]:
    if keep <= 0:
        return []
    step = len(offsets) / keep
    return [offsets[int(i * step)] for i in range(keep)]


def _hard_places(text: str, node: Node, out: set[int]) -> None:
    out.add(node.start)  # right before the value: after ":" or "," or "["
    out.add(node.start + 1)
    out.add(node.end)
    if node.kind in ("number", "literal"):
        out.update(range(node.start + 1, node.end))
    elif node.kind == "string":
        _string_places(text, node.start, node.end, out)
    elif node.kind == "object":
        for (_, key_start, key_end), child in zip(node.keys, node.children):
            _string_places(text, key_start, key_end, out)
            out.add(key_end + 1)  # right after the colon, when it follows the key at once
            _hard_places(text, child, out)
    else:
        for child in node.children:
            _hard_places(text, child, out)
    out.add(node.end - 1)  # before the closing quote, brace or bracket


def _string_places(text: str, start: int, end: int, out: set[int]) -> None:
    """Inside a string or key: after its quote, its middle, before its closing quote, and every escape."""
    out.update((start + 1, (start + end) // 2, end - 1, end))
    i = start + 1
    while i < end - 1:
        if text[i] == "\\":
            out.add(i + 1)  # right after the backslash
            if text[i + 1] == "u":
                out.update(range(i + 2, i + 6))  # inside \uXXXX
                if "d800" <= text[i + 2:i + 6].lower() <= "dbff":
                    out.add(i + 6)  # between the two halves of a surrogate pair
                i += 6
            else:
                i += 2
        else:
            i += 1
