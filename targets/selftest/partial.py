"""Partial parsers broken in one rule each, on top of the reference partial parser.

Each mutant hands the reference a prefix changed in one way, or changes one
thing in what it shows, so that it breaks exactly one rule of the partial
contract (docs/contract.md, "Partial parsers"), which the self-test must
find as that rule's kind.
"""

from __future__ import annotations

import re
from typing import Any

from toolfuzz.targets.reference.partial import parse

__all__ = ["number_early", "raw_escape", "key_early", "null_for_missing", "raise_in_string", "forget_at_escape"]

_TRAILING_NUMBER = re.compile(r"[-+0-9.eE]+\Z")
_PARTIAL_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{0,3})?\Z")
_AFTER_COLON = re.compile(r":\s*(n|nu|nul)?\Z")


def _open_string(prefix: str) -> str | None:
    """Whether ``prefix`` ends inside a string: ``"key"`` or ``"value"`` for which kind, else None."""
    inside = escape = False
    last_outside = opened_after = ""
    stack: list[str] = []  # the open containers, strings skipped
    for c in prefix:
        if inside:
            if escape:
                escape = False
            elif c == "\\":
                escape = True
            elif c == '"':
                inside = False
        elif c == '"':
            inside, opened_after = True, last_outside
        elif c not in " \t\n\r":
            last_outside = c
            if c in "{[":
                stack.append(c)
            elif c in "}]" and stack:
                stack.pop()
    if not inside:
        return None
    return "key" if opened_after in ("{", ",") and stack[-1:] == ["{"] else "value"


def number_early(prefix: str) -> Any:
    """Shows a number while its text is still arriving (1 for what becomes 10)."""
    if _open_string(prefix) is None and _TRAILING_NUMBER.search(prefix) and prefix[-1].isdigit():
        return parse(prefix + " ")
    return parse(prefix)


def raw_escape(prefix: str) -> Any:
    """Shows an escape cut short as its raw text (a backslash, or \\u00)."""
    cut = _PARTIAL_ESCAPE.search(prefix)
    if _open_string(prefix) is not None and cut is not None and _escaping(prefix, cut.start()):
        return parse(prefix[:cut.start()] + "\\\\" + prefix[cut.start() + 1:])
    return parse(prefix)


def key_early(prefix: str) -> Any:
    """Shows a key before its closing quote has arrived, with a null value."""
    if _open_string(prefix) == "key" and not _PARTIAL_ESCAPE.search(prefix):
        # Marked with U+0000 so that a key cut short never takes the place of a whole key before it ("a"
        # of "a" and "ab"): that would show a value changed, another rule.
        return parse(prefix + '\\u0000": null')
    return parse(prefix)


def null_for_missing(prefix: str) -> Any:
    """Shows null for a member whose value has not begun."""
    if _open_string(prefix) is None:
        # Held through a null still arriving, so that a member whose final value is null is not shown and
        # then taken back (another rule).
        head = _AFTER_COLON.search(prefix)
        if head is not None:
            return parse(prefix[:head.start(1) if head.group(1) else len(prefix)] + "null")
    return parse(prefix)


def raise_in_string(prefix: str) -> Any:
    """Raises on any prefix that ends inside a string value."""
    if _open_string(prefix) == "value":
        raise ValueError("unterminated string")
    return parse(prefix)


def forget_at_escape(prefix: str) -> Any:
    """Forgets the open string (and its member) while an escape in it is cut short, having shown it before."""
    cut = _PARTIAL_ESCAPE.search(prefix)
    if _open_string(prefix) == "value" and cut is not None and _escaping(prefix, cut.start()):
        value = parse(prefix)
        return _without_last_member(value)
    return parse(prefix)


def _escaping(prefix: str, at: int) -> bool:
    """Whether the backslash at ``at`` starts an escape (it is not itself escaped)."""
    run = len(prefix[:at]) - len(prefix[:at].rstrip("\\"))
    return run % 2 == 0


def _without_last_member(value: Any) -> Any:
    """``value`` with its innermost last member or element removed (where the open string is)."""
    if isinstance(value, dict) and value:
        key = list(value)[-1]
        if isinstance(value[key], (dict, list)) and value[key]:
            return {**value, key: _without_last_member(value[key])}
        return {k: v for k, v in value.items() if k != key}
    if isinstance(value, list) and value:
        if isinstance(value[-1], (dict, list)) and value[-1]:
            return value[:-1] + [_without_last_member(value[-1])]
        return value[:-1]
    return value
