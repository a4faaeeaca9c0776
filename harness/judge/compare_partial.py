"""Judging a partial parser: what it showed at each prefix, against the final value and against itself.

The contract (docs/contract.md, "Partial parsers") has one rule per kind in
:data:`PARTIAL_KINDS`.  Every rule is checked on every prefix and reported
once per case: one rule that a parser breaks on nearly every case must not
hide another it breaks more rarely, so no kind here is a consequence of
another, and the search reports each kind a case shows
(``toolfuzz.engine.search``).

A value shown at a proper prefix is judged node by node against the span
tree of the complete text (``toolfuzz.judge.prefixes``): a value the
prefix has not reached may not be shown, except as an empty object or array
or as its own final value; a string the prefix is inside may be any prefix
of its final string in code points; everything else equals its final value.
Values that keep every rule at two successive prefixes are then compared
with each other, so that a value taken back is told apart from one that was
wrong to begin with.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterable

from toolfuzz.identity import CrashState
from toolfuzz.judge.prefixes import Node, Text
from toolfuzz.kinds import Where, meanings
from toolfuzz.judge.observation import PrefixAnswer

__all__ = ["PARTIAL_KINDS", "Reading", "as_double", "compare_partial", "holds_value", "same"]

#: The partial-level divergence kinds, in the order they are checked, with what each means.
PARTIAL_KINDS = meanings(Where.PARTIAL)


@dataclass(frozen=True)
class Reading:
    """How a target's values are read: what its language holds them as, and what its users ask of it
    (docs/contract.md, "Partial parsers")."""

    #: It tells ``1`` from ``1.0`` and keeps the sign of ``-0.0`` (Python does).  Without it (a language with
    #: one number type, speaking JSON over a pipe), a number is right when it is the same IEEE double.
    exact_numbers: bool = True
    #: Its strings are sequences of UTF-16 code units (JavaScript): a string still arriving is a prefix of
    #: its final string in those units, and may end in the first half of a pair the final string holds whole.
    utf16_strings: bool = False
    #: What the library was asked for that a rule forbids (``toolfuzz.targets.base.RELAXATIONS``): with
    #: ``partial-numbers``, a number still arriving may be shown as the digits so far (and then grow).
    relaxations: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Prefix:
    """One answer being judged: the text, how far the prefix reaches, how values are read, what it broke."""

    text: str
    length: int
    reading: Reading
    broken: dict[str, str]


def compare_partial(texts: tuple[Text, ...], answers: Iterable[PrefixAnswer],
                    reading: Reading = Reading()) -> list[tuple[str, str, CrashState | None]]:
    """``(kind, detail, state)`` for each rule broken, once per kind, in kind order.

    ``answers`` say, for the text at position ``text`` of ``texts``, what was shown at the prefix of
    ``length``; ``state`` is the crash state of a raise (None for the other kinds); ``reading`` says how
    the target's numbers and strings are read.
    """
    found: dict[str, str] = {}
    states: dict[str, CrashState | None] = {}
    previous: dict[int, tuple[int, Any]] = {}
    for answer in sorted(answers, key=lambda a: (a.text, a.length)):
        number, length, value, raised = answer.text, answer.length, answer.value, answer.raised
        text = texts[number]
        where = f"{_call(text)}, prefix {_prefix(text.text, length)}"
        if length == len(text.text):
            if raised is not None:
                found.setdefault("final_differs", f"{_call(text)}: raised on the complete text: {raised[:120]}")
                states.setdefault("final_differs", answer.crash_state)
            elif not same(value, text.tree.value, reading.exact_numbers):
                found.setdefault("final_differs", f"{_call(text)}: the complete text gave {_brief(value)}, "
                                                  f"not {_brief(text.tree.value)}")
            continue
        if raised is not None:
            if holds_value(text.text, length):
                found.setdefault("raised_on_prefix", f"{where}: {raised[:120]}")
                states.setdefault("raised_on_prefix", answer.crash_state)
                previous.pop(number, None)
            continue
        broken: dict[str, str] = {}
        if value is not None:
            _judge(value, text.tree, None, _Prefix(text.text, length, reading, broken))
        for kind, detail in broken.items():
            found.setdefault(kind, f"{where}: {detail}")
        if broken:
            previous.pop(number, None)
            continue
        before = previous.get(number)
        if before is not None and before[1] is not None:
            lost = _taken_back(before[1], value, None, reading)
            if lost is not None:
                found.setdefault("value_taken_back", f"{where}: {lost} (at prefix "
                                                     f"{_prefix(text.text, before[0])} it showed {_brief(before[1])})")
        previous[number] = (length, value)
    return [(kind, found[kind], states.get(kind)) for kind in PARTIAL_KINDS if kind in found]


def same(a: Any, b: Any, exact_numbers: bool = True) -> bool:
    """Whether ``a`` is ``b`` as JSON values are: types kept (an int is not a float, a bool not a number),
    ``-0.0`` not ``0.0``, objects equal with their keys in any order.  Without ``exact_numbers``, two numbers
    are the same when they are the same IEEE double (the one number type of JavaScript: 2**64 + 1 is 2**64)."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if _is_number(a) and _is_number(b):
        if not exact_numbers:
            return as_double(a) == as_double(b)
        if type(a) is not type(b):
            return False
        if isinstance(a, float):
            return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], exact_numbers) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, exact_numbers) for x, y in zip(a, b))
    return False


def as_double(v: int | float) -> float:
    """``v`` as the nearest IEEE double, as a language with one number type reads it (past the largest
    double, an infinity)."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _kind_of(v: Any) -> str:
    if v is None or isinstance(v, bool):
        return "literal"
    if _is_number(v):
        return "number"
    if isinstance(v, str):
        return "string"
    return "object" if isinstance(v, dict) else "array" if isinstance(v, list) else type(v).__name__


def _judge(value: Any, node: Node, path: str | None, at: _Prefix) -> None:
    """Record in ``at.broken`` each rule ``value``, shown for ``node`` at the prefix ``at``, breaks (``path``
    None for the whole value)."""
    here = "the value" if path is None else _place(path)
    broken, exact = at.broken, at.reading.exact_numbers
    if node.start >= at.length:
        # Not reached: only an empty container (nothing shown inside it) or the final value itself is not
        # made up.
        if not ((isinstance(value, dict) and not value and node.kind == "object")
                or (isinstance(value, list) and not value and node.kind == "array")
                or same(value, node.value, exact)):
            broken.setdefault("invented_value", f"{here} is {_brief(value)} before any of it arrived")
        return
    kind = _kind_of(value)
    if kind != node.kind:
        broken.setdefault("type_differs", f"{here} is {_brief(value)}, where the final value is "
                                          f"{_brief(node.value)}")
        return
    if node.kind == "object":
        final_keys = [k for k, _, _ in node.keys]
        place = {k: i for i, k in enumerate(final_keys)}
        # The keys shown are the first keys of the final object, in whatever order the value holds them: a
        # language may order an object's keys its own way (JavaScript puts integer-like keys first).
        for key in value:
            if key not in place or place[key] >= len(value):
                what = "not a key there" if key not in place else "shown before the keys ahead of it"
                broken.setdefault("invented_key", f"{here} has key {_brief(key)} ({what}; the final keys are "
                                                  f"{_brief(final_keys)})")
                return
        for key in value:
            i = place[key]
            if node.keys[i][2] > at.length:
                broken.setdefault("invented_key", f"{here} has key {_brief(key)} before its closing quote "
                                                  "arrived")
                return
            _judge(value[key], node.children[i], _member(path, key), at)
    elif node.kind == "array":
        if len(value) > len(node.children):
            broken.setdefault("invented_value", f"{here} has {len(value)} elements, the final array "
                                                f"{len(node.children)}")
        for i, (item, child) in enumerate(zip(value, node.children)):
            _judge(item, child, f"{path or ''}[{i}]", at)
    elif node.kind == "string":
        if value == node.value:
            return
        open_ = at.length < node.end
        if open_ and _begins(node.value, value, at.reading) and (at.reading.utf16_strings or not _lone_half(value)):
            return
        how = ("a prefix of it, but the string had closed" if _begins(node.value, value, at.reading)
               else "not a prefix of it")
        broken.setdefault("string_not_prefix", f"{here} is {_brief(value)}; the final string is "
                                               f"{_brief(node.value)}: {how}")
    elif node.kind == "number":
        if same(value, node.value, exact):
            return
        if at.length < node.end:
            if "partial-numbers" in at.reading.relaxations and same(value, _so_far(node, at), exact):
                return
            broken.setdefault("number_before_complete", f"{here} is {_brief(value)} while its text is still "
                                                        f"arriving; the final number is {_brief(node.value)}")
        else:
            broken.setdefault("scalar_differs", f"{here} is {_brief(value)}, not {_brief(node.value)}")
    elif not same(value, node.value, exact):
        broken.setdefault("scalar_differs", f"{here} is {_brief(value)}, not {_brief(node.value)}")


def _so_far(node: Node, at: _Prefix) -> Any:
    """The number the text of ``node`` that ``at`` holds reads as, up to its last digit (``1.5e-`` is 1.5,
    ``-0.`` is 0); None while it holds no digit."""
    digits = at.text[node.start:at.length].rstrip(".eE+-")
    return json.loads(digits) if digits.lstrip("-") else None


def _begins(whole: str, part: str, reading: Reading) -> bool:
    """Whether ``part`` is a prefix of ``whole``: in code points, or in UTF-16 code units where the target's
    strings are made of them."""
    if not reading.utf16_strings or (whole.isascii() and part.isascii()):
        return whole.startswith(part)
    return _units(whole).startswith(_units(part))


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def _lone_half(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)


def _taken_back(before: Any, after: Any, path: str | None, reading: Reading) -> str | None:
    """What of ``before`` is gone from ``after`` (both kept every rule), or None if ``after`` extends it.

    ``path`` is None for the whole value, where None is nothing shown; below it, None is a JSON null.
    """
    here = "the value" if path is None else _place(path)
    if path is None and after is None:
        return "the value is gone"
    if isinstance(before, dict):
        for key, item in before.items():
            if key not in after:
                return f"{here} lost key {_brief(key)}"
            lost = _taken_back(item, after[key], _member(path, key), reading)
            if lost is not None:
                return lost
        return None
    if isinstance(before, list):
        if len(after) < len(before):
            return f"{here} went from {len(before)} elements to {len(after)}"
        for i, item in enumerate(before):
            lost = _taken_back(item, after[i], f"{path or ''}[{i}]", reading)
            if lost is not None:
                return lost
        return None
    if isinstance(before, str):
        return None if _begins(after, before, reading) else f"{here} went from {_brief(before)} to {_brief(after)}"
    if same(before, after, reading.exact_numbers) or ("partial-numbers" in reading.relaxations and _is_number(before)):
        # Asked for partial numbers, each number shown is its digits so far or its final value (both judged at
        # their own prefix): a later one can only have grown.
        return None
    return f"{here} went from {_brief(before)} to {_brief(after)}"


def _member(path: str | None, key: str) -> str:
    return key if path is None else f"{path}.{key}"


def _place(path: str) -> str:
    return path if path else "the member with the empty key"


def holds_value(text: str, length: int) -> bool:
    """Whether the first ``length`` characters of ``text`` hold the start of its value: a raise there counts."""
    return bool(text[:length].strip(" \t\n\r"))


def _call(text: Text) -> str:
    return f"call {text.index} of choice {text.choice}"


def _prefix(text: str, length: int) -> str:
    shown = text[:length]
    return f"{length}/{len(text)} ...{shown[-24:]!r}" if length > 24 else f"{length}/{len(text)} {shown!r}"


def _brief(value: Any, limit: int = 60) -> str:
    r = repr(value)
    return r if len(r) <= limit else r[:limit - 3] + "..."
