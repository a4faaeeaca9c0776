"""The fixture loader under hostile input: >= 10,000 broken variants of the real fixtures in findings/.

Fixture files are inputs from strangers.  Every variant here (flipped bytes,
truncation at each kind of position, each field swapped for each wrong type
or removed, unknown format versions, huge numbers, nesting 100,000 deep,
10 MB strings) must either load or raise one FixtureError that names the file
and, when the text is a JSON object, the field at fault, in a message of
bounded length.  Any other exception is a failure.  The variants come from a
seeded generator, so every run checks the same ones.

A load that hangs is stopped by an alarm set far above any real load time (a
guard against hangs, not a speed test), and the large variants are loaded
under tracemalloc with a memory bound proportional to their size.
"""

from __future__ import annotations

import json
import random
import re
import signal
import sys
import tracemalloc
from pathlib import Path
from typing import Any, Iterator

import pytest

from toolfuzz.corpus.fixtures import Fixture, FixtureError, iter_fixture_paths, loads
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SOURCES = [(p, p.read_bytes()) for p in iter_fixture_paths([str(FINDINGS)])]
#: Variants per real fixture, so that the total passes 10,000 whatever findings/ holds.
PER_FIXTURE = max(320, 10_000 // max(1, len(SOURCES)) + 1)
#: A hang guard: real loads take milliseconds; only a loop that never ends reaches this.
HANG_SECONDS = 30
#: An error message quotes at most a little of what it complains about.
MAX_MESSAGE = 1_000
MB = 1024 * 1024

WRONG_VALUES: list[Any] = [None, True, False, 0, -1, 7, 2 ** 70, 1.5, "", "x", "\ud800", [], [None], {}, {"x": 1}]
STRUCTURAL = b'{}[]":,\\ '


# -- variants ---------------------------------------------------------------

def paths_in(doc: Any, at: tuple = ()) -> Iterator[tuple]:
    """Every place in a document (lists: their first two items), as key/index tuples."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield at + (key,)
            yield from paths_in(value, at + (key,))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:2]):
            yield at + (i,)
            yield from paths_in(value, at + (i,))


def field_name(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def replaced(doc: Any, path: tuple, value: Any) -> Any:
    """A copy of ``doc`` with ``path`` set to ``value`` (or removed, for the ``...`` value)."""
    if not path:
        return value
    copy = dict(doc) if isinstance(doc, dict) else list(doc)
    head, rest = path[0], path[1:]
    if rest:
        copy[head] = replaced(copy[head], rest, value)
    elif value is ...:
        del copy[head]
    else:
        copy[head] = value
    return copy


def encode(doc: Any) -> bytes:
    # ASCII with escapes: a lone surrogate swapped in stays a valid UTF-8 file holding one.
    return json.dumps(doc).encode("ascii")


def splice(doc: Any, path: tuple, raw_value: bytes) -> bytes:
    """The document with ``path`` replaced by raw JSON text that json.dumps cannot write (huge, deep)."""
    marker = "\u0001toolfuzz-splice\u0001"
    return encode(replaced(doc, path, marker)).replace(json.dumps(marker).encode(), raw_value, 1)


def truncation_points(raw: bytes, rng: random.Random) -> list[tuple[str, int]]:
    """Cut points of each kind: after each structural character, inside digits, escapes and multibyte characters."""
    by_kind: dict[str, list[int]] = {}
    for i, byte in enumerate(raw):
        if byte in STRUCTURAL:
            kind = chr(byte)
        elif 0x30 <= byte <= 0x39:
            kind = "digit"
        elif 0x80 <= byte < 0xC0:
            kind = "inside a multibyte character"
        elif byte >= 0xC0:
            kind = "before a multibyte character"
        else:
            kind = "letter"
        by_kind.setdefault(kind, []).append(i)
    points = [("empty file", 0), ("last byte gone", len(raw) - 1)]
    for kind, places in sorted(by_kind.items()):
        for at in rng.sample(places, min(4, len(places))):
            points.extend([(f"cut before {kind!r}", at), (f"cut after {kind!r}", at + 1)])
    return points


def variants(path: Path, raw: bytes, count: int) -> Iterator[tuple[str, bytes, tuple | None]]:
    """``count`` broken variants of one fixture: (what was done, the bytes, the field swapped if one was)."""
    rng = random.Random(f"{path.parent.name}/{path.name}")
    doc = json.loads(raw)
    places = list(paths_in(doc))
    made = 0
    fixed: list[tuple[str, bytes, tuple | None]] = []
    for kind, at in truncation_points(raw, rng):
        fixed.append((f"truncated: {kind} at {at}", raw[:at], None))
    for version in ("toolfuzz-fixture/2", "toolfuzz-fixture/0", "toolfuzz-fixture/1.1", "", "TOOLFUZZ-FIXTURE/1",
                    "toolfuzz-fixture/" + "9" * 5000):
        fixed.append((f"format {version[:30]!r}", encode({**doc, "format": version}), ("format",)))
    for place in rng.sample(places, min(12, len(places))):
        fixed.append((f"huge integer at {field_name(place)}", splice(doc, place, b"1" + b"0" * 5000), place))
        fixed.append((f"4000-digit integer at {field_name(place)}", splice(doc, place, b"9" * 4000), place))
    for place in rng.sample(places, min(4, len(places))):
        for number in (b"1e999", b"-1e999", b"1e-999", b"123456789012345678901234567890.5e300"):
            fixed.append((f"number {number.decode()} at {field_name(place)}", splice(doc, place, number), place))
    for name, text, place in fixed[:count]:
        made += 1
        yield name, text, place
    while made < count:
        made += 1
        roll = rng.random()
        if roll < 0.30:
            flipped = bytearray(raw)
            for _ in range(rng.choice((1, 1, 1, 2, 5))):
                at = rng.randrange(len(flipped))
                flipped[at] = rng.choice((flipped[at] ^ (1 << rng.randrange(8)), rng.randrange(256),
                                          rng.choice(STRUCTURAL)))
            yield "flipped bytes", bytes(flipped), None
        elif roll < 0.40:
            at = rng.randrange(len(raw))
            yield f"truncated at {at}", raw[:at], None
        elif roll < 0.85:
            place = rng.choice(places)
            value = rng.choice(WRONG_VALUES)
            yield f"{field_name(place)} = {value!r}", encode(replaced(doc, place, value)), place
        else:
            place = rng.choice(places)
            yield f"{field_name(place)} removed", encode(replaced(doc, place, ...)), place


def large_variants() -> Iterator[tuple[str, bytes, tuple | None]]:
    """The few expensive ones: 100,000-deep nesting and 10 MB strings, at the places that matter."""
    path, raw = next((p, r) for p, r in SOURCES if json.loads(r)["expected"]["calls"])
    doc = json.loads(raw)
    deep_open, deep_closed = b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000
    for place in [("found",), ("tools",), ("expected", "calls", 0), ("wire", "cuts"), ("observed",)]:
        yield f"nesting 100000 deep at {field_name(place)}", splice(doc, place, deep_closed), place
    yield "nesting 100000 deep, unclosed", deep_open, None
    yield "objects nested 100000 deep", b'{"a":' * 100_000 + b"1" + b"}" * 100_000, None
    long = "\u00e9" * (5 * MB)  # 10 MB of UTF-8

    def encode(doc: Any) -> bytes:
        return json.dumps(doc, ensure_ascii=False).encode("utf-8")

    for place in [("name",), ("description",), ("wire", "lines", 0), ("features", 0), ("expected", "calls", 0, "id"),
                  ("expected", "calls", 0, "status"), ("wire", "encoding"), ("format",), ("statement",), ("dialect",)]:
        yield f"10 MB string at {field_name(place)}", encode(replaced(doc, place, long)), place
    yield "10 MB key in observed", encode({**doc, "observed": {long: 1}}), ("observed",)
    yield "10 MB key in limits", encode({**doc, "limits": {long: 1}}), ("limits",)
    yield "10 MB of digits as a cut", splice(doc, ("wire", "cuts"), b"[" + b"7" * (10 * MB) + b"]"), ("wire", "cuts")
    yield "10 MB of whitespace", raw + b" " * (10 * MB), None
    # (tracemalloc makes each allocation slow: a hundred thousand items stand for millions.)
    yield "100000 empty lines on the wire", encode(replaced(doc, ("wire", "lines"), [""] * 100_000)), None
    yield "100000 cuts at 0", encode(replaced(doc, ("wire", "cuts"), [0] * 100_000)), None
    yield "100000 cuts, the last one wrong", encode(replaced(doc, ("wire", "cuts"), [0] * 100_000 + [-1])), None


# -- checking ---------------------------------------------------------------

class Hung(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hung()


def load_one(name: str, raw: bytes, source: str) -> Fixture | FixtureError:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_SECONDS)
    try:
        return loads(raw, source)
    except FixtureError as e:
        return e
    except Hung:
        pytest.fail(f"{source}: {name}: the loader did not return within {HANG_SECONDS} s")
    except Exception as e:  # noqa: BLE001 - any other exception is the failure this test looks for
        pytest.fail(f"{source}: {name}: {type(e).__name__} escaped the loader: {str(e)[:200]}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _finite(text: str) -> float:
    if abs(float(text)) == float("inf"):
        raise ValueError("out of range")
    return float(text)


def is_json_object(raw: bytes) -> bool:
    """Whether the text is a JSON object a loader could name fields in (numbers out of range do not count)."""
    try:
        return isinstance(json.loads(raw.decode("utf-8"), parse_float=_finite), dict)
    except (ValueError, RecursionError):
        return False


def explains(field: str, place: tuple) -> bool:
    """Whether a refusal naming ``field`` is about the change made at ``place``.

    The field named is the one changed or one inside it, compared by whole names (``wire`` is not
    inside ``wire.lines`` and ``name`` is not ``names``); or, for a change to the wire's text, one
    of its cuts, whose bounds are the text's length.
    """
    changed = field_name(place)
    if field == changed or field.startswith((changed + ".", changed + "[")):
        return True
    return place[:2] in (("wire", "lines"), ("wire", "data")) and re.fullmatch(r"wire\.cuts\[\d+\]", field) is not None


def check(name: str, raw: bytes, place: tuple | None, source: str) -> str:
    """Load one variant and check what came back: "loaded", "refused", or "refused, field checked"."""
    result = load_one(name, raw, source)
    if isinstance(result, Fixture):
        return "loaded"
    message = str(result)
    assert result.source == source and message.startswith(f"{source}: "), (name, message[:200])
    assert len(message) <= MAX_MESSAGE, (name, f"{len(message)} characters", message[:200])
    if result.field == "" and is_json_object(raw):
        pytest.fail(f"{source}: {name}: a JSON object refused without naming a field: {message[:200]}")
    if place is not None and result.field:
        assert explains(result.field, place), (name, result.field, message[:200])
        return "refused, field checked"
    return "refused"


def test_ten_thousand_broken_fixtures_each_load_or_name_the_file_and_field():
    assert SOURCES, "findings/ has fixtures to derive variants from"
    tally = {"loaded": 0, "refused": 0, "refused, field checked": 0}
    for path, raw in SOURCES:
        source = f"{path.parent.name}/{path.name}"
        for name, text, place in variants(path, raw, PER_FIXTURE):
            tally[check(name, text, place, source)] += 1
    assert sum(tally.values()) >= 10_000
    # Both outcomes occur: the variants are not all trivially broken, nor all harmless; and the field
    # named was checked against the one changed for a good share of them, not for a handful.
    refused = tally["refused"] + tally["refused, field checked"]
    assert refused > 5_000 and tally["loaded"] > 100 and tally["refused, field checked"] > 2_000, tally


@pytest.mark.parametrize("name,raw,place", list(large_variants()), ids=lambda v: v if isinstance(v, str) else "")
def test_huge_and_deep_fixtures_are_refused_or_loaded_in_bounded_memory(name, raw, place):
    tracemalloc.start()
    try:
        check(name, raw, place, "big.json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Linear in the input with a small factor: the text, its decoded form, the parsed values.
    assert peak <= 8 * len(raw) + 64 * MB, f"{name}: peak {peak / MB:.0f} MB for {len(raw) / MB:.1f} MB of input"


def test_a_huge_number_is_refused_with_where_it_is():
    raw = json.dumps({"format": "toolfuzz-fixture/1"}).encode()[:-1] + b', "name": ' + b"9" * 5000 + b"}"
    with pytest.raises(FixtureError) as e:
        loads(raw, "n.json")
    assert e.value.source == "n.json" and "digits" in str(e.value) and "line 1" in str(e.value)


def test_a_non_finite_number_is_refused_and_names_where_it_is():
    doc = json.loads(SOURCES[0][1])
    doc["found"] = {"x": 1}
    raw = encode(doc).replace(b'"x": 1', b'"x": 1e999')
    with pytest.raises(FixtureError, match="not a finite number") as e:
        loads(raw, "inf.json")
    assert e.value.source == "inf.json"


def test_a_long_key_is_shortened_in_the_field_name():
    doc = json.loads(SOURCES[0][1])
    doc["observed"] = {"k" * 100_000: 3}
    with pytest.raises(FixtureError) as e:
        loads(encode(doc), "k.json")
    assert e.value.field.startswith("observed.kkk") and len(e.value.field) < 200 and "..." in e.value.field


def test_the_field_check_refuses_a_refusal_that_names_another_field(monkeypatch):
    # What the check above is for: a loader that blames the wrong field, even at the top level.
    doc = json.loads(SOURCES[0][1])
    raw = encode(replaced(doc, ("name",), 7))

    def blames_the_format(raw: bytes, source: str) -> Fixture:
        raise FixtureError(source, "format", "blamed on the wrong field")

    monkeypatch.setattr(sys.modules[__name__], "loads", blames_the_format)
    with pytest.raises(AssertionError):
        check("name = 7", raw, ("name",), "f.json")
    assert explains("name", ("name",)) and explains("expected.calls[0].id", ("expected", "calls", 0))
    assert explains("wire.cuts[3]", ("wire", "lines", 1)) and not explains("wire.cuts[3]", ("name",))
    assert not explains("names", ("name",)) and not explains("wire", ("wire", "lines"))
