"""Scalar and free-form JSON values, biased toward what breaks assemblers.

Every strategy here draws a small "mode" integer first and the value second.
Mode 0 is always the plain case (short ASCII, small numbers), so Hypothesis
shrinks a failing value toward something a person can read before it
shrinks its characters.
"""

from __future__ import annotations

import math
from typing import Any

from toolfuzz.strategies.stage import boolean, floating, integer, stage, text

__all__ = ["NASTY_CHARACTERS", "strings", "integers", "numbers", "json_values", "LARGE_TEXT_MIN"]

#: Characters that sit on the fault lines of a JSON text cut into pieces:
#: the string delimiters and escapes, structure, white space (which some
#: assemblers strip at fragment edges), control characters (escaped as \\uXXXX),
#: 2-, 3- and 4-byte UTF-8 (cut by network reads), the two JavaScript line
#: terminators that are legal raw in JSON, and the letters of an escape.
NASTY_CHARACTERS = (
    '"', "\\", "{", "}", "[", "]", ":", ",", " ", "\t", "\n", "\r", "/", "'",
    "\x00", "\x08", "\x1f", "\x7f", "é", "ß", "€", "中", "\u2028", "\u2029",
    "\ufeff", "😀", "𝄞", "u", "d", "8", "0",
)

#: A large string is at least this long: past the 8 KiB buffers some clients use.
LARGE_TEXT_MIN = 10_000

_WORD_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 _-."


@stage
def strings(draw: Any, min_size: int = 0, max_size: int | None = None) -> str:
    """Plain words mostly; sometimes nasty characters; rarely tens of KB."""
    mode = integer(draw, 0, 15)
    if mode < 9:
        out = text(draw, _WORD_ALPHABET, 0, 16)
    elif mode < 15:
        out = text(draw, None, 0, 24, NASTY_CHARACTERS)
    else:
        # Built by repetition rather than drawn character by character: tens of KB
        # of drawn text would cost Hypothesis its whole buffer and a second a value.
        seed = text(draw, None, 0, 24, NASTY_CHARACTERS) or "x"
        repeat = integer(draw, LARGE_TEXT_MIN, 4 * LARGE_TEXT_MIN)
        out = seed * max(1, -(-repeat // len(seed)))
    if max_size is not None and len(out) > max_size:
        out = out[:max_size]
    if len(out) < min_size:
        out += "a" * (min_size - len(out))
    return out


def _bounds(schema: dict[str, Any], integral: bool) -> tuple[Any, Any]:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    xlo, xhi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    # draft 4 spells exclusivity as a boolean beside minimum/maximum
    if xlo is True and lo is not None:
        xlo, lo = lo, None
    if xhi is True and hi is not None:
        xhi, hi = hi, None
    if isinstance(xlo, bool):
        xlo = None
    if isinstance(xhi, bool):
        xhi = None
    if integral:
        if lo is not None:
            lo = math.ceil(lo)
        if xlo is not None:
            lo = max(lo, math.floor(xlo) + 1) if lo is not None else math.floor(xlo) + 1
        if hi is not None:
            hi = math.floor(hi)
        if xhi is not None:
            hi = min(hi, math.ceil(xhi) - 1) if hi is not None else math.ceil(xhi) - 1
        return lo, hi
    return (lo, xlo), (hi, xhi)


_BIG = 2**64


@stage
def integers(draw: Any, schema: dict[str, Any] | None = None) -> int:
    """Small integers mostly; sometimes anywhere in bounds; sometimes past 64 bits."""
    lo, hi = _bounds(schema or {}, integral=True)
    mode = integer(draw, 0, 9)
    if mode < 7:
        a = -1000 if lo is None else max(lo, -1000)
        b = 1000 if hi is None else min(hi, 1000)
        if a > b:  # the bounds leave out the numbers near zero
            a = lo if lo is not None else hi - 2000
            b = a + 2000 if hi is None else min(hi, a + 2000)
        return integer(draw, a, b)
    if mode < 9 or (hi is not None and hi < _BIG and (lo is None or lo > -_BIG)):
        return integer(draw, lo, hi)
    # Past 64 bits: orjson cannot write these, and float parsers round them.
    if hi is None or hi >= _BIG:
        floor = max(_BIG, lo if lo is not None else _BIG)
        return integer(draw, floor, max(floor, hi if hi is not None else floor * 2**40))
    ceiling = min(-_BIG, hi)
    return integer(draw, min(ceiling, lo) if lo is not None else ceiling * 2**40, ceiling)


@stage
def numbers(draw: Any, schema: dict[str, Any] | None = None) -> float | int:
    """Integers or finite floats in bounds, often with large or small exponents."""
    (lo, xlo), (hi, xhi) = _bounds(schema or {}, integral=False)
    if boolean(draw):
        low = float(lo) if lo is not None else None if xlo is None else math.nextafter(float(xlo), math.inf)
        high = float(hi) if hi is not None else None if xhi is None else math.nextafter(float(xhi), -math.inf)
        return floating(draw, low, high)
    return integers.draw(draw, schema)


def _deep(value: Any, depth: int, as_object: bool) -> Any:
    for i in range(depth):
        value = {"k": value} if as_object and i % 2 else [value]
    return value


def _tree(draw: Any, leaves: list[int], depth: int = 0) -> Any:
    # Containers until the leaves run out, then scalars: at most eight leaves, as st.recursive drew.
    kind = integer(draw, 0, 6)
    if kind >= 5 and leaves[0] > 0 and depth < 6:
        n = integer(draw, 0, 4)
        if kind == 5:
            return [_tree(draw, leaves, depth + 1) for _ in range(n)]
        return {strings.draw(draw, 0, 24): _tree(draw, leaves, depth + 1) for _ in range(n)}
    leaves[0] -= 1
    if kind == 0:
        return None
    if kind == 1:
        return boolean(draw)
    if kind == 2:
        return integers.draw(draw)
    if kind == 3:
        return numbers.draw(draw)
    return strings.draw(draw)


@stage
def json_values(draw: Any) -> Any:
    """Any JSON value; rarely nested tens of levels deep."""
    value = _tree(draw, [8])
    if integer(draw, 0, 15) == 15:
        value = _deep(value, integer(draw, 16, 96), boolean(draw))
    return value
