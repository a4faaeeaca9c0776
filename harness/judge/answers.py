"""What a target returned, checked for shape and read as an observation, before anything is compared.

A target is somebody else's code: its answer is data of any shape.  Each reader here says in one line what in
an answer is not what its level takes (a ValueError, reported as ``bad_return``), and never judges what it
reads: that is the comparison's.
"""

from __future__ import annotations

from typing import Any

from toolfuzz.vocabulary import ERROR_CODES, STATUSES, SSEEvent
from toolfuzz.targets.base import Target
from toolfuzz.judge.observation import ObservedCall, Observation
from toolfuzz.judge.producer import answer_of, assembled

__all__ = ["with_stream_error", "produced", "calls_from", "events_from", "not_json"]


def with_stream_error(result: Any) -> tuple[Any, str | None]:
    if not isinstance(result, dict) or set(result) != {"calls", "stream_error"}:
        raise ValueError("claims errors, so must return {\"calls\": [...], \"stream_error\": CODE or None}, "
                         f"not {type(result).__name__}")
    error = result["stream_error"]
    if error is not None and error not in ERROR_CODES:
        raise ValueError(f"stream_error {error!r} is not one of {', '.join(ERROR_CODES)} or None")
    return result["calls"], error


def produced(result: Any, seconds: float) -> Observation:
    """A producer's answer: its streamed deltas as the reference assembles them, and its whole-text parse."""
    content, deltas, whole_content, whole = answer_of(result)
    try:
        streamed = assembled(deltas)
    except (TypeError, ValueError) as e:
        raise ValueError(f"its deltas are not delta.tool_calls entries: {e}") from None
    return Observation(calls=tuple(ObservedCall(0, c["index"], c["id"], c["name"], c["arguments"], True)
                                   for c in streamed),
                       seconds=seconds,
                       whole=tuple(ObservedCall(0, k, None, c.get("name"), c.get("arguments") or "", True)
                                   for k, c in enumerate(whole)),
                       produced={"content": content, "deltas": deltas,
                                 "whole": {"content": whole_content, "calls": whole}})


def calls_from(result: Any, target: Target) -> tuple[ObservedCall, ...]:
    if not isinstance(result, (list, tuple)):
        raise ValueError(f"returned {type(result).__name__}, not a list of calls")
    calls = []
    for i, item in enumerate(result):
        if not isinstance(item, dict):
            raise ValueError(f"item {i} is {type(item).__name__}, not a dict")
        arguments = item.get("arguments", "")
        if not isinstance(arguments, str):
            raise ValueError(f"item {i}: arguments is {type(arguments).__name__}, not a string")
        choice = item.get("choice", 0)
        index = item.get("index")
        for key, value in (("choice", choice), ("index", index)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"item {i}: {key} is {value!r}, not an integer")
        ids = []
        for key in ("id", "name"):
            value = item.get(key)
            if value is not None and not isinstance(value, str):
                value = str(value)
            ids.append(value or None)
        complete = item.get("complete", True)
        if not isinstance(complete, bool):
            raise ValueError(f"item {i}: complete is {complete!r}, not a boolean")
        status = item.get("status")
        if "validation" in target.reports:
            if status not in STATUSES:
                raise ValueError(f"item {i}: status {status!r} is not one of {', '.join(STATUSES)}")
        else:
            status = None
        calls.append(ObservedCall(choice or 0, index, ids[0], ids[1], arguments, complete, status))
    return tuple(calls)


def events_from(result: Any) -> tuple[SSEEvent, ...]:
    """An sse-level target's events, with the spec's defaults for an unnamed type and an unset id."""
    if not isinstance(result, (list, tuple)):
        raise ValueError(f"returned {type(result).__name__}, not a list of events")
    events = []
    for i, item in enumerate(result):
        if not isinstance(item, dict):
            raise ValueError(f"event {i} is {type(item).__name__}, not a dict")
        data = item.get("data")
        if not isinstance(data, str):
            raise ValueError(f"event {i}: data is {type(data).__name__}, not a string")
        for key in ("event", "id"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise ValueError(f"event {i}: {key} is {type(item[key]).__name__}, not a string or None")
        # A library that leaves the type or the id unset (None) means what the
        # spec writes as "message" and "": a difference of spelling, not of events.
        events.append(SSEEvent(data, item.get("event") or "message", item.get("id") or ""))
    return tuple(events)


#: How deep a partial parser's value may nest before it is not taken as a value (JSON texts here nest less).
_MAX_DEPTH = 200


def not_json(value: Any, path: str, depth: int) -> str | None:
    """What makes ``value`` other than a JSON value (dict with str keys, list, str, int, float, bool, None)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if depth > _MAX_DEPTH:
        return f"a value nested deeper than {_MAX_DEPTH}"
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = not_json(item, f"{path}[{i}]", depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"an object with the key {key!r}, not a string, at {path or 'the top'}"
            problem = not_json(item, f"{path}.{key}", depth + 1)
            if problem is not None:
                return problem
        return None
    return f"a {type(value).__name__} at {path or 'the top'}, not a JSON value"
