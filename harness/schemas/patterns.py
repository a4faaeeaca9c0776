"""JSON Schema's regular expressions, read as ECMA-262 says and handed to Python's ``re`` with that meaning.

A schema's ``pattern`` (and each key of ``patternProperties``) is an ECMA-262
regular expression, and it searches: it is not anchored (JSON Schema 2020-12,
core §6.4 and validation §6.3.3).  The specification recommends the ``u``
flag, as Ajv and most validators build them, so it is read with ``u`` and
without ``m``, ``s`` or ``i``.  Python's ``re`` reads the same text
differently in a few places, and this module translates each of them:

* ``$`` is the end of the input; Python's also matches before a final
  newline (``^[A-Z]{3}$`` takes ``"MBV\\n"``): it becomes ``\\Z``.  ``^`` is the
  start of the input, as it is in Python without ``re.MULTILINE``.
* ``.`` matches any character but the four line terminators (LF, CR, U+2028,
  U+2029); Python's only refuses LF.
* ``\\d``, ``\\w`` and ``\\b`` are ASCII (``[0-9]``, ``[A-Za-z0-9_]``); Python's
  take every Unicode digit and letter.  ``\\s`` is ECMA-262's white space and
  line terminators, which differ from Python's (U+FEFF is one, U+001C to
  U+001F and U+0085 are not).  Their negations follow.
* ``(?<name>...)`` and ``\\k<name>`` are Python's ``(?P<name>...)`` and
  ``(?P=name)``; ``\\cX``, ``\\u{...}`` and a surrogate pair written as two
  ``\\uXXXX`` escapes name the character they stand for.  ``[]`` matches
  nothing and ``[^]`` anything.

What has no exact translation is refused with the reason
(:class:`UntranslatablePattern`): Unicode property escapes (``\\p{...}``),
``\\D``, ``\\W`` or ``\\S`` inside a character class, an escaped letter that is
not an ECMA-262 escape, a group that is not (inline flags such as ``(?i)``),
``{,n}``, and whatever Python's ``re`` cannot compile after translation (a
lookbehind of varying width).

Both sides use it: the validators the reference and the strategies check
arguments with (:func:`validator`), and the strategies' regex draws
(:func:`python_pattern`; :func:`python_schema` for hypothesis-jsonschema).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Mapping

__all__ = ["UntranslatablePattern", "python_pattern", "python_schema", "validator"]


class UntranslatablePattern(ValueError):
    """A schema's pattern that Python's ``re`` cannot be made to read as ECMA-262 does, and why."""

    def __init__(self, pattern: str, reason: str, path: str = "") -> None:
        #: Where in the schema it is (``properties.code.pattern``), when it was met in one.
        self.pattern, self.reason, self.path = pattern, reason, path
        where = f" at {path}" if path else ""
        super().__init__(f"pattern {pattern[:80]!r}{where}: {reason}")


#: ECMA-262's WhiteSpace and LineTerminator code points, which its ``\s`` matches.
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_DIGIT, _WORD = "0-9", "A-Za-z0-9_"
#: The class escapes, as a class's contents: inside a class they join it, outside they are a class.
_CLASSES = {"d": _DIGIT, "w": _WORD, "s": _SPACE}
#: The escapes ECMA-262 gives a meaning of their own that Python's ``re`` shares, letter for letter.
_SAME = frozenset("fnrtv")
#: Characters ECMA-262 lets a ``u`` pattern escape to mean themselves.
_SYNTAX = frozenset("^$\\.*+?()[]{}|/-")
#: Characters literal in an ECMA-262 class that Python's ``re`` warns of (nested sets, set operations).
_CLASS_QUOTE = frozenset("[&~|")
_LINE_END = "[^\\n\\r\\u2028\\u2029]"


@functools.lru_cache(maxsize=1024)
def python_pattern(pattern: str) -> str:
    """The Python ``re`` pattern that searches as the ECMA-262 ``pattern`` does; :class:`UntranslatablePattern`
    if there is none."""
    out = _Translation(pattern).run()
    try:
        re.compile(out)
    except re.error as e:
        raise UntranslatablePattern(pattern, f"Python's re cannot read it as ECMA-262 does ({e})") from None
    return out


class _Translation:
    """One pass over an ECMA-262 pattern, writing its Python equivalent."""

    def __init__(self, pattern: str) -> None:
        self.src, self.at, self.out = pattern, 0, []
        self.in_class = False

    def refuse(self, reason: str) -> UntranslatablePattern:
        return UntranslatablePattern(self.src, reason)

    def run(self) -> str:
        src = self.src
        while self.at < len(src):
            c = src[self.at]
            self.at += 1
            if c == "\\":
                self.escape()
            elif self.in_class:
                if c == "]":
                    self.in_class = False
                    self.out.append(c)
                else:
                    self.out.append("\\" + c if c in _CLASS_QUOTE else c)
            elif c == "[":
                self.open_class()
            elif c == "$":
                self.out.append("\\Z")
            elif c == ".":
                self.out.append(_LINE_END)
            elif c == "(" and src.startswith("?", self.at):
                self.group()
            elif c == "{" and src.startswith(",", self.at):
                raise self.refuse("'{,' is no quantifier in ECMA-262 (Python reads '{,n}' as one)")
            else:
                self.out.append(c)
        if self.in_class:
            raise self.refuse("a character class is not closed")
        return "".join(self.out)

    def open_class(self) -> None:
        src = self.src
        negated = src.startswith("^", self.at)
        after = self.at + negated
        if src.startswith("]", after):
            # ECMA-262's empty class matches nothing, and its negation anything; Python reads ']' there as
            # a literal.
            self.out.append("[\\s\\S]" if negated else "(?!)")
            self.at = after + 1
            return
        self.out.append("[^" if negated else "[")
        self.at = after
        self.in_class = True

    def group(self) -> None:
        src, at = self.src, self.at  # at the '?'
        if src.startswith(("?:", "?=", "?!", "?<=", "?<!"), at):
            self.out.append("(")
            return
        named = re.match(r"\?<([A-Za-z_$][A-Za-z0-9_$]*)>", src[at:])
        if named is None:
            raise self.refuse(f"'(?{src[at + 1:at + 3]}' is no ECMA-262 group")
        if "$" in named.group(1):
            raise self.refuse("a group name with '$' has no Python spelling")
        self.out.append(f"(?P<{named.group(1)}>")
        self.at += named.end()

    def escape(self) -> None:
        src = self.src
        if self.at >= len(src):
            raise self.refuse("it ends in a lone backslash")
        c = src[self.at]
        self.at += 1
        if c in _CLASSES or c.lower() in _CLASSES:
            self.class_escape(c)
        elif c in "bB":
            if self.in_class:
                if c == "B":
                    raise self.refuse("'\\B' inside a character class is no ECMA-262 escape")
                self.out.append("\\x08")  # a backspace, in both
            else:
                self.out.append(f"(?a:\\{c})")
        elif c in _SAME:
            self.out.append("\\" + c)
        elif c == "c":
            letter = src[self.at:self.at + 1]
            if not (letter.isascii() and letter.isalpha()):
                raise self.refuse("'\\c' is not followed by a letter")
            self.at += 1
            self.out.append(f"\\x{ord(letter) % 32:02x}")
        elif c == "x":
            digits = src[self.at:self.at + 2]
            if not re.fullmatch(r"[0-9A-Fa-f]{2}", digits):
                raise self.refuse("'\\x' is not followed by two hex digits")
            self.at += 2
            self.out.append("\\x" + digits)
        elif c == "u":
            self.out.append(self.code_point())
        elif c == "0" and not src[self.at:self.at + 1].isdigit():
            self.out.append("\\x00")
        elif c.isdigit():
            if self.in_class:
                raise self.refuse("a back reference inside a character class")
            number = re.match(r"\d*", src[self.at:]).group()
            self.at += len(number)
            self.out.append(f"(?:\\{c}{number})")  # grouped, so that a digit after it stays a digit
        elif c == "k":
            named = re.match(r"<([A-Za-z_][A-Za-z0-9_]*)>", src[self.at:])
            if named is None:
                raise self.refuse("'\\k' is not followed by a group name")
            self.at += named.end()
            self.out.append(f"(?P={named.group(1)})")
        elif c in "pP":
            raise self.refuse(f"Unicode property escapes ('\\{c}{{...}}') have no equivalent in Python's re")
        elif c in _SYNTAX:
            self.out.append("\\" + c)
        else:
            raise self.refuse(f"'\\{c}' is no ECMA-262 escape")

    def class_escape(self, c: str) -> None:
        members = _CLASSES[c.lower()]
        if c.islower():
            self.out.append(members if self.in_class else f"[{members}]")
        elif self.in_class:
            raise self.refuse(f"'\\{c}' inside a character class has no exact Python spelling")
        else:
            self.out.append(f"[^{members}]")

    def code_point(self) -> str:
        src = self.src
        braced = re.match(r"\{([0-9A-Fa-f]{1,6})\}", src[self.at:])
        if braced is not None:
            self.at += braced.end()
            value = int(braced.group(1), 16)
            if value > 0x10FFFF:
                raise self.refuse(f"'\\u{{{braced.group(1)}}}' is past the last code point")
            return f"\\U{value:08x}"
        unit = re.match(r"[0-9A-Fa-f]{4}", src[self.at:])
        if unit is None:
            raise self.refuse("'\\u' is not followed by four hex digits or {...}")
        self.at += 4
        value = int(unit.group(), 16)
        low = re.match(r"\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})", src[self.at:])
        if 0xD800 <= value <= 0xDBFF and low is not None:
            # Under the u flag a pair of escapes is the one character it encodes.
            self.at += low.end()
            value = 0x10000 + ((value - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
            return f"\\U{value:08x}"
        return f"\\u{value:04x}"


#: Where a schema holds data, not schemas: patterns there are values, never translated.
_DATA = frozenset({"const", "enum", "default", "examples"})


def python_schema(schema: Any) -> Any:
    """``schema`` with each ``pattern`` and ``patternProperties`` key translated (:func:`python_pattern`), for
    tools that read patterns with Python's ``re`` (jsonschema, hypothesis-jsonschema); the same object when it
    has none.  :class:`UntranslatablePattern`, with the path of the pattern, for one that cannot be."""
    return _translated(schema, "")


def _translated(schema: Any, path: str) -> Any:
    if isinstance(schema, list):
        items = [_translated(s, f"{path}[{i}]") for i, s in enumerate(schema)]
        return schema if all(a is b for a, b in zip(items, schema)) else items
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    changed = False
    for key, value in schema.items():
        at = f"{path}.{key}" if path else str(key)
        if key in _DATA:
            new = value
        elif key == "pattern" and isinstance(value, str):
            new = _at(value, at)
        elif key == "patternProperties" and isinstance(value, dict):
            new = {_at(k, f"{at}.{k}"): _translated(v, f"{at}.{k}") for k, v in value.items()}
        else:
            new = _translated(value, at)
        changed = changed or new is not value
        out[key] = new
    return out if changed else schema


def _at(pattern: str, path: str) -> str:
    try:
        return python_pattern(pattern)
    except UntranslatablePattern as e:
        raise UntranslatablePattern(e.pattern, e.reason, path) from None


def validator(schema: Mapping[str, Any], check: bool = False) -> Any:
    """A jsonschema validator of ``schema`` (its own draft, Draft 2020-12 by default; no format assertions)
    that reads its patterns as ECMA-262 does.  :class:`UntranslatablePattern` for a pattern it cannot read so;
    with ``check``, ``jsonschema.exceptions.SchemaError`` for a schema its draft's metaschema refuses (a
    pattern is then held to being a regular expression as translated)."""
    # Here, not at the top: jsonschema takes longer to import than `toolfuzz assemble` takes to start.
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    from toolfuzz.schemas.meta import schema_error

    translated = python_schema(schema)
    if check:
        # The metaschema's verdict by toolfuzz.schemas.meta, on the schema's distinct shapes: checked part by
        # part, a schema of tens of thousands of properties took seconds.
        error = schema_error(translated)
        if error is not None:
            raise error
    return validator_for(schema, default=Draft202012Validator)(translated)
