"""The producer level's rules: a serving engine's parser judged on the calls and content a model wrote.

The calls a case's model wrote, and the text around them, are known by
construction (:mod:`toolfuzz.strategies.dialects.text`).  A parser is judged
on what its server streams (the deltas, assembled by the reference as any
client would assemble them, and the content deltas) and on what it parses
from the whole text, against what was written.  Arguments are compared as
JSON values: a server writes the arguments it parsed in its own way, and
only a different value (or no value at all) is a mistake.  Content is
compared without its white space, since a parser may keep or drop the line
breaks and spaces around a call's markup (two words run together by a
parser that drops the space between them are not told apart: noise on
correct parsers would cost more).

The streamed calls come first, then the content (judged when the calls
are right: a call the parser missed shows as content, and is that call
lost), then the whole-text parse: where the batches fall is the server's
business, so a parser that reads the whole text right and the batches wrong
is wrong for every client.  The detail says when the whole-text parse gets
right what the streamed answer got wrong (the streamed and whole answers
disagree).
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from toolfuzz.judge.compare_partial import as_double
from toolfuzz.kinds import Trait, Where, meanings, with_trait
from toolfuzz.vocabulary import Call, Outcome

__all__ = ["PRODUCER_KINDS", "OWN_RULES", "compare_producer", "same_value"]

#: The kinds only the producer level has, with what each means (it shares call_lost, phantom_call,
#: name_differs, arguments_differ and id_differs with the assemblers' levels).
PRODUCER_KINDS = meanings(Where.PRODUCER)
#: The kinds that are each a rule of the parser's contract of its own (toolfuzz.kinds.Trait.OWN_RULE).
OWN_RULES = with_trait(Trait.OWN_RULE)
#: The order the producer level's kinds are checked in.
ORDER = ("call_lost", "phantom_call", "name_differs", "arguments_invalid", "arguments_differ", "index_differs",
         "id_differs", "markup_leaked", "content_differs", "whole_differs")

_NO_VALUE = object()


def compare_producer(expected: Outcome, streamed: Sequence[Any], content: str, whole: Sequence[Any],
                     whole_content: str, markers: Sequence[str]) -> list[tuple[str, str]]:
    """``(kind, detail)`` for each kind of mistake, in :data:`ORDER`.

    ``streamed`` are the assembled streamed calls (``index``, ``id``, ``name``, ``arguments``), ``whole`` the
    whole-text parse's (``name``, ``arguments``); ``markers`` the format's special marks.
    """
    written = expected.calls
    whole_wrong = _calls_wrong(written, whole) or _content_wrong(expected.content, whole_content, written, markers)
    also = "" if whole_wrong else " (the whole-text parse of the same text gets it right)"
    found: dict[str, str] = {}
    wrong = _calls_wrong(written, streamed)
    if wrong is not None:
        found[wrong[0]] = wrong[1] + also
    else:
        indexes = [c.index for c in streamed]
        if indexes != list(range(len(written))):
            found["index_differs"] = f"indexes {indexes} for {len(written)} calls written in order" + also
        ids = [c.id for c in streamed]
        if None in ids or len(set(ids)) != len(ids):
            found["id_differs"] = f"the calls' ids are {ids}: one each, and no two the same" + also
    # Content is judged once the calls are right: a call the parser missed is handed on as content, which is
    # that call lost, not another mistake.
    leaked = None if wrong is not None else _content_wrong(expected.content, content, written, markers)
    if leaked is not None:
        found.setdefault(leaked[0], leaked[1] + also)
    if whole_wrong is not None:
        found.setdefault("whole_differs", f"whole text: {whole_wrong[1]}")
    return [(k, found[k]) for k in ORDER if k in found]


def _calls_wrong(written: Sequence[Call], got: Sequence[Any]) -> tuple[str, str] | None:
    if len(got) < len(written):
        return ("call_lost", f"{len(written)} calls written ({_names(written)}), {len(got)} handed on "
                             f"({_names(got)})")
    if len(got) > len(written):
        return ("phantom_call", f"{len(written)} calls written ({_names(written)}), {len(got)} handed on "
                                f"({_names(got)})")
    for k, (w, g) in enumerate(zip(written, got)):
        if g.name != w.name:
            return ("name_differs", f"call {k}: written {w.name!r}, handed on {g.name!r}")
    for k, (w, g) in enumerate(zip(written, got)):
        value = _value(g.arguments)
        if value is _NO_VALUE:
            return ("arguments_invalid", f"call {k} ({w.name}): {_short(g.arguments)!r} is not one JSON text")
        if not same_value(value, json.loads(w.arguments)):
            return ("arguments_differ", f"call {k} ({w.name}): written {_short(w.arguments)!r}, handed on "
                                        f"{_short(g.arguments)!r}")
    return None


def _content_wrong(expected: str | None, got: str, written: Sequence[Call], markers: Sequence[str]
                   ) -> tuple[str, str] | None:
    if expected is None or _collapsed(got) == _collapsed(expected):
        return None
    extra = got
    for part in expected.split():
        extra = extra.replace(part, "", 1)
    if any(m in extra for m in markers) or any(c.name and c.name in extra for c in written):
        return ("markup_leaked", f"content {_short(got)!r}, where the model wrote {_short(expected)!r}")
    return ("content_differs", f"content {_short(got)!r}, where the model wrote {_short(expected)!r}")


def _collapsed(text: str) -> str:
    return "".join(text.split())


def _names(calls: Sequence[Any]) -> str:
    return ", ".join(str(c.name) for c in calls) or "none"


def _value(text: Any) -> Any:
    if not isinstance(text, str):
        return _NO_VALUE
    try:
        return json.loads(text)
    except ValueError:
        return _NO_VALUE


def same_value(a: Any, b: Any) -> bool:
    """JSON values equal as values: a number equal to a number whatever its type, but never a boolean to a
    number (Python's ``True == 1``).  Two numbers that are the same IEEE double are the same: RFC 8259 section 6
    leaves precision and range past a double to each implementation, and a server may read numbers so."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or as_double(a) == as_double(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _short(text: Any, limit: int = 80) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."
