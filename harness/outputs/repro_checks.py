"""What a repro script checks: one function per divergence kind, in words a library's maintainer reads.

A repro script (:mod:`toolfuzz.outputs.repro`) copies :func:`reproduce` and
the one check its fixture needs, so this module uses nothing but the
standard library.  Each check is handed what the library gave (its calls,
its events, its answer for each prefix, or a serving engine's answer) and
returns ``(shows, what)``: whether the divergence the fixture records shows,
and what was seen either way, as one line.  They ask only what the fixture
records, in the terms of docs/contract.md: toolfuzz's judge
(``toolfuzz.judge.compare``) names every kind a case shows, and the corpus
test holds each check to the judge's verdict on every recorded fixture.

Calls are dicts as toolfuzz's adapters return them (``choice``, ``index``,
``id``, ``name``, ``arguments``, ``complete``) and expected calls as a
fixture writes them (the same, with ``status`` for ``complete``).
"""

from __future__ import annotations

import json
import signal
import time
import traceback
from collections import Counter
from difflib import SequenceMatcher
from typing import Any, Callable

__all__ = ["CHECKS", "reproduce", "each_prefix", "assembled_deltas"]

#: An expected call's status when the stream never finished it (toolfuzz.vocabulary.INCOMPLETE).
UNFINISHED = "incomplete"


class TookTooLong(BaseException):
    """Raised inside the library when it runs past the time limit: not an Exception, which a library's broad
    ``except Exception`` would swallow."""


def reproduce(run: Callable[[], Any], check: Callable[[Any], tuple[bool, str]] | None = None, raises: str = "",
              seconds: float = 0.0) -> int:
    """Run the library on the recorded stream, print one line, and return the exit status.

    1 and ``REPRODUCED: ...`` when the bug shows; 0 and ``NOT REPRODUCED: ...`` when it does not (fixed);
    2 and ``CHANGED: ...`` when the library now fails another way (it raises where the bug was in what it
    returned).  ``raises`` names the exception the fixture recorded, when the bug is a raise; ``seconds``
    is a time limit, when the bug is that the library runs past it.
    """
    if seconds:
        signal.signal(signal.SIGALRM, _too_long)
        # Again and again after the first, in case a library's bare ``except`` swallows one.
        signal.setitimer(signal.ITIMER_REAL, seconds, 0.2)
    started = time.monotonic()
    try:
        result = run()
    except TookTooLong:
        print(f"REPRODUCED: still running after {seconds:g} s, toolfuzz's limit for one stream")
        return 1
    except Exception as error:  # noqa: BLE001 - the library's exception is the finding, or a new one
        said = _short(" ".join(f"{type(error).__name__}: {error}".split()), 300)
        if raises:
            other = "" if type(error).__name__ == raises else f" (the fixture recorded {raises})"
            print(f"REPRODUCED: raised {said}{other}")
            return 1
        traceback.print_exc()
        print(f"CHANGED: raised {said}, where the fixture recorded no raise")
        return 2
    finally:
        if seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)
    if seconds:
        took = time.monotonic() - started
        if took > seconds:
            print(f"REPRODUCED: took {took:.1f} s, past toolfuzz's limit of {seconds:g} s for one stream")
            return 1
        print(f"NOT REPRODUCED: finished in {took:.1f} s, within {seconds:g} s")
        return 0
    if raises or check is None:
        print("NOT REPRODUCED: returned without raising")
        return 0
    shows, what = check(result)
    print(("REPRODUCED: " if shows else "NOT REPRODUCED: ") + what)
    return 1 if shows else 0


def _too_long(signum: int, frame: Any) -> None:
    raise TookTooLong


def _short(text: Any, limit: int = 80) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# -- calls: what an assembler hands on ---------------------------------------------------------------------

def _name(value: Any) -> str | None:
    """An id or name as toolfuzz reads it: text (an integer id as its digits), and none when empty."""
    if value is not None and not isinstance(value, str):
        value = str(value)
    return value or None


def _where(call: dict[str, Any]) -> str:
    return f"call {call['index']} of choice {call['choice']}"


def _paired(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[list, list, list]:
    """Each expected call with the call handed on at its choice and index (in order, when several share one);
    then the expected calls with none, and the calls handed on that pair with none."""
    have: dict[tuple[int, Any], list[dict[str, Any]]] = {}
    for call in calls:
        have.setdefault((call.get("choice") or 0, call.get("index")), []).append(call)
    pairs, missing = [], []
    for want in expected:
        there = have.get((want["choice"], want["index"]))
        if there:
            pairs.append((want, there.pop(0)))
        else:
            missing.append(want)
    return pairs, missing, [call for left in have.values() for call in left]


def _arguments_as(values: bool) -> Callable[[str], Any]:
    """How arguments are compared: as text, or as the JSON value they spell (blank text is ``{}``)."""
    def value(text: str) -> Any:
        try:
            return json.loads(text.strip() or "{}")
        except ValueError:
            return ("not JSON", text)
    return value if values else (lambda text: text)


def call_lost(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    _, missing, _ = _paired(expected, calls)
    finished = [want for want in missing if want["status"] != UNFINISHED]
    if finished:
        want = finished[0]
        return True, (f"the stream finished {_where(want)} ({want['name']}, id {want['id']}), but it is not among "
                      f"the {len(calls)} call(s) handed on")
    return False, f"every call the stream finished is handed on ({len(calls)} call(s))"


def phantom_call(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    _, _, extra = _paired(expected, calls)
    if extra:
        call = extra[0]
        return True, (f"a call the stream never made is handed on: index {call.get('index')} of choice "
                      f"{call.get('choice') or 0}, id {call.get('id')}, name {call.get('name')}, arguments "
                      f"{_short(call.get('arguments'), 60)!r}")
    return False, "every call handed on is one the stream made"


def arguments_misattributed(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    pairs, missing, extra = _paired(expected, calls)
    moved = [want for want, call in pairs if call.get("arguments", "") != want["arguments"]]
    sent = Counter("".join(want["arguments"] for want in expected))
    handed = Counter("".join(call.get("arguments", "") for call in calls))
    if (missing or extra or moved) and sent == handed:
        shown = "; ".join(f"index {call.get('index')}: {_short(call.get('arguments'), 40)!r}" for call in calls)
        return True, (f"the argument text is all there but on the wrong calls: the stream sent "
                      f"{', '.join(repr(_short(w['arguments'], 40)) for w in expected)} for "
                      f"{len(expected)} call(s); handed on: {shown}")
    return False, "each call's arguments are on the call the stream gave them to"


def choices_mixed(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    owner = {want["id"]: want["choice"] for want in expected if want["id"]}
    for call in calls:
        choice = owner.get(_name(call.get("id")))
        if choice is not None and choice != (call.get("choice") or 0):
            return True, f"call {call.get('id')!r} of choice {choice} is handed on in choice {call.get('choice')}"
    sent = {c: Counter("".join(w["arguments"] for w in expected if w["choice"] == c)) for c in owner.values()}
    for choice, text in sent.items():
        handed = Counter("".join(call.get("arguments", "") for call in calls if (call.get("choice") or 0) == choice))
        if handed != text:
            return True, f"choice {choice} is handed on with arguments text of other choices"
    return False, "each choice's calls stay in their choice"


def arguments_differ(expected: list[dict[str, Any]], calls: list[dict[str, Any]],
                     values: bool = False) -> tuple[bool, str]:
    """``values``: the library hands on a parsed value, so arguments are compared as JSON values."""
    compared = _arguments_as(values)
    for want, call in _paired(expected, calls)[0]:
        if compared(call.get("arguments", "")) != compared(want["arguments"]):
            return True, (f"{_where(want)}: the stream sent the arguments {_short(want['arguments'], 80)!r} "
                          f"(its fragments joined), but {_short(call.get('arguments', ''), 80)!r} is handed on")
    return False, "every call's arguments are the fragments the stream sent, joined"


def id_differs(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, call in _paired(expected, calls)[0]:
        if _name(call.get("id")) != want["id"]:
            return True, f"{_where(want)}: the stream gave the id {want['id']!r}, but {call.get('id')!r} is handed on"
    return False, "every call has the id the stream gave it"


def name_differs(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, call in _paired(expected, calls)[0]:
        if _name(call.get("name")) != want["name"]:
            return True, (f"{_where(want)}: the stream named the tool {want['name']!r}, but {call.get('name')!r} "
                          "is handed on")
    return False, "every call has the name the stream gave it"


def incomplete_handed_on(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, call in _paired(expected, calls)[0]:
        if want["status"] == UNFINISHED and call.get("complete", True):
            return True, (f"{_where(want)} ({want['name']}, arguments {_short(want['arguments'], 60)!r}) is handed on "
                          "as complete, though the stream never finished it")
    return False, "no call the stream left unfinished is handed on as complete"


def complete_withheld(expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, call in _paired(expected, calls)[0]:
        if want["status"] != UNFINISHED and not call.get("complete", True):
            return True, f"{_where(want)} is withheld as unfinished, though the stream finished it"
    return False, "every call the stream finished is handed on as complete"


# -- events: what an SSE decoder dispatches -------------------------------------------------------------------

def _event(event: dict[str, Any]) -> tuple[str, str, str]:
    """An event as the spec writes it: an unnamed type is "message", an unset id is ""."""
    return event.get("event") or "message", event["data"], event.get("id") or ""


def _matched(expected: list[dict[str, Any]], events: list[dict[str, Any]]) -> tuple[list, list, list]:
    """Events paired by their data, in order; then the expected events left over, and the events left over."""
    want, got = [_event(e) for e in expected], [_event(e) for e in events]
    pairs, lost, extra = [], [], []
    matcher = SequenceMatcher(None, [e[1] for e in want], [e[1] for e in got], autojunk=False)
    for _, w0, w1, g0, g1 in matcher.get_opcodes():
        n = min(w1 - w0, g1 - g0)
        pairs.extend(zip(want[w0:w0 + n], got[g0:g0 + n]))
        lost.extend(want[w0 + n:w1])
        extra.extend(got[g0 + n:g1])
    return pairs, lost, extra


def event_lost(expected: list[dict[str, Any]], events: list[dict[str, Any]]) -> tuple[bool, str]:
    _, lost, _ = _matched(expected, events)
    if lost:
        kind, data, _ = lost[0]
        return True, (f"the stream dispatches an event (type {kind!r}, data {_short(data, 60)!r}) that is not among "
                      f"the {len(events)} event(s) handed on")
    return False, f"every event the stream dispatches is handed on ({len(events)} event(s))"


def phantom_event(expected: list[dict[str, Any]], events: list[dict[str, Any]]) -> tuple[bool, str]:
    _, _, extra = _matched(expected, events)
    if extra:
        kind, data, _ = extra[0]
        return True, (f"an event the stream never dispatched is handed on (type {kind!r}, data "
                      f"{_short(data, 60)!r}); the stream dispatches {len(expected)} event(s)")
    return False, "every event handed on is one the stream dispatches"


def data_differs(expected: list[dict[str, Any]], events: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, got in _matched(expected, events)[0]:
        if want[1] != got[1]:
            # Around where the two first differ: a data line differs far past any head of fixed width.
            at = next((i for i, (a, b) in enumerate(zip(want[1], got[1])) if a != b), min(len(want[1]), len(got[1])))
            start = max(0, at - 20)
            return True, (f"an event's data differs from character {at}: it is {got[1][start:at + 40]!r}, where "
                          f"the stream sent {want[1][start:at + 40]!r}")
    return False, "every event's data is its data lines, joined"


def event_type_differs(expected: list[dict[str, Any]], events: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, got in _matched(expected, events)[0]:
        if want[0] != got[0]:
            return True, f"an event's type is {got[0]!r}, where the stream named it {want[0]!r}"
    return False, "every event has the type the stream named"


def event_id_differs(expected: list[dict[str, Any]], events: list[dict[str, Any]]) -> tuple[bool, str]:
    for want, got in _matched(expected, events)[0]:
        if want[2] != got[2]:
            return True, f"an event's last event id is {got[2]!r}, where the stream set {want[2]!r}"
    return False, "every event has the last event id the stream set"


# -- prefixes: what a partial JSON parser shows ---------------------------------------------------------------

def each_prefix(parse: Callable[[str], Any], text: str, lengths: list[int]) -> list[tuple[int, Any, Any]]:
    """``parse`` on each prefix of ``text`` of the given lengths: ``(length, value, exception or None)`` each."""
    answers = []
    for n in lengths:
        try:
            answers.append((n, parse(text[:n]), None))
        except Exception as error:  # noqa: BLE001 - a raise is the answer for that prefix
            answers.append((n, None, error))
    return answers


def raised_on_prefix(answers: list[tuple[int, Any, Any]]) -> tuple[bool, str]:
    for n, _, error in answers:
        if error is not None:
            said = " ".join(f"{type(error).__name__}: {error}".split())
            return True, f"raised {_short(said, 200)} on the prefix of {n} characters"
    return False, f"no raise on any of the {len(answers)} prefixes"


# -- a serving engine's answer: what its server streams, and what it parses from the whole text ----------------

def assembled_deltas(deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls a client makes of the ``delta.tool_calls`` entries a server streams: one per index, the first
    id and name, the argument fragments joined."""
    calls: dict[Any, dict[str, Any]] = {}
    for entry in deltas:
        function = entry.get("function") or {}
        call = calls.setdefault(entry.get("index"), {"index": entry.get("index"), "id": None, "name": None,
                                                     "arguments": ""})
        call["id"] = call["id"] or entry.get("id")
        call["name"] = call["name"] or function.get("name")
        call["arguments"] += function.get("arguments") or ""
    return list(calls.values())


def _value(text: Any) -> Any:
    # Integers past a double's exact range are read as the double they round to (RFC 8259, section 6).
    try:
        return json.loads(text, parse_int=_int_or_double)
    except (TypeError, ValueError):
        return ("not JSON", text)


def _int_or_double(digits: str) -> int | float:
    number = int(digits)
    if abs(number) <= 2 ** 53:
        return number
    try:
        return float(number)
    except OverflowError:
        return float("inf") if number > 0 else float("-inf")


def _same_calls(written: list[dict[str, Any]], calls: list[dict[str, Any]]) -> bool:
    return [(w["name"], _value(w["arguments"])) for w in written] == \
        [(c.get("name"), _value(c.get("arguments"))) for c in calls]


def _collapsed(text: str | None) -> str:
    """Text without its white space: a parser may keep or drop the line breaks around a call's markup."""
    return "".join((text or "").split())


def content_differs(written: list[dict[str, Any]], content: str, answer: dict[str, Any]) -> tuple[bool, str]:
    streamed = answer["content"]
    if _collapsed(streamed) != _collapsed(content):
        return True, (f"the server streams the content {_short(streamed, 80)!r}, where the model wrote "
                      f"{_short(content, 80)!r}")
    return False, "the server streams the text around the calls as content"


def markup_leaked(written: list[dict[str, Any]], content: str, answer: dict[str, Any],
                  marks: tuple[str, ...] = ()) -> tuple[bool, str]:
    extra = answer["content"]
    for part in content.split():
        extra = extra.replace(part, "", 1)
    leaked = [m for m in marks if m in extra] + [w["name"] for w in written if w["name"] and w["name"] in extra]
    if leaked:
        return True, f"the server streams {leaked[0]!r} as content: {_short(answer['content'], 80)!r}"
    return False, "no markup is streamed as content"


def whole_differs(written: list[dict[str, Any]], content: str, answer: dict[str, Any]) -> tuple[bool, str]:
    whole = answer["whole"]
    if not _same_calls(written, whole["calls"]):
        return True, (f"parsed as a whole, the text gives the calls {_calls_said(whole['calls'])}, where the model "
                      f"wrote {_calls_said(written)}")
    if _collapsed(whole["content"]) != _collapsed(content):
        return True, (f"parsed as a whole, the text gives the content {_short(whole['content'], 80)!r}, where the "
                      f"model wrote {_short(content, 80)!r}")
    return False, "parsed as a whole, the text gives the calls and content the model wrote"


def _calls_said(calls: list[dict[str, Any]]) -> str:
    return "[" + ", ".join(f"{c.get('name')}({_short(c.get('arguments'), 50)})" for c in calls) + "]"


def streamed_call_lost(written: list[dict[str, Any]], content: str, answer: dict[str, Any]) -> tuple[bool, str]:
    calls = assembled_deltas(answer["deltas"])
    if len(calls) < len(written):
        return True, (f"the model wrote {len(written)} call(s) ({_calls_said(written)}), the server streams "
                      f"{len(calls)} ({_calls_said(calls)})")
    return False, f"the server streams every call the model wrote ({len(calls)})"


def arguments_invalid(written: list[dict[str, Any]], content: str, answer: dict[str, Any]) -> tuple[bool, str]:
    for k, call in enumerate(assembled_deltas(answer["deltas"])):
        if isinstance(_value(call["arguments"]), tuple):
            return True, (f"streamed call {k} ({call['name']}) has the arguments {_short(call['arguments'], 80)!r}, "
                          "not one JSON text")
    return False, "every streamed call's arguments are one JSON text"


def streamed_arguments_differ(written: list[dict[str, Any]], content: str, answer: dict[str, Any]) -> tuple[bool, str]:
    for k, (want, call) in enumerate(zip(written, assembled_deltas(answer["deltas"]))):
        if _value(call["arguments"]) != _value(want["arguments"]):
            return True, (f"streamed call {k} ({want['name']}): the model wrote {_short(want['arguments'], 60)!r}, the "
                          f"server streams {_short(call['arguments'], 60)!r}")
    return False, "every streamed call has the arguments the model wrote"


#: The check for each kind, by level: ``calls`` (an assembler's), ``events`` (a decoder's), ``prefixes`` (a
#: partial parser's), ``producer`` (a serving engine's).  A kind not here has no repro check.
CHECKS: dict[str, dict[str, Callable[..., tuple[bool, str]]]] = {
    "calls": {f.__name__: f for f in (call_lost, phantom_call, arguments_misattributed, choices_mixed,
                                      arguments_differ, id_differs, name_differs, incomplete_handed_on,
                                      complete_withheld)},
    "events": {f.__name__: f for f in (event_lost, phantom_event, data_differs, event_type_differs,
                                       event_id_differs)},
    "prefixes": {"raised_on_prefix": raised_on_prefix},
    "producer": {"call_lost": streamed_call_lost, "arguments_invalid": arguments_invalid,
                 "arguments_differ": streamed_arguments_differ, "markup_leaked": markup_leaked,
                 "content_differs": content_differs, "whole_differs": whole_differs},
}
