"""Running one target on one case, safely, and turning whatever it did into an observation.

A target is somebody else's code.  While it runs, sockets, processes and
writes outside the temporary folder are refused (an audit hook, so it holds
for C extensions' Python-level calls too) and reported; it gets a time limit
per case (SIGALRM, on the main thread); whatever it raises is an outcome.
Whatever it writes to stdout and stderr is captured (:mod:`toolfuzz.judge.capture`)
and kept with the observation, out of the run's own output.  Its return value
is checked for shape before anything is compared.

A raise is also given a crash state (:func:`crash_state`): its type and the
innermost frames of the target's own code, so that raises from the same
place cluster together whatever their messages say.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from types import FrameType
from typing import Any

from toolfuzz.vocabulary import END_OF_STREAM, ERROR_CODES, STATUSES, Case, Output, SSEEvent, exact_json
from toolfuzz.targets.base import BadReturn, Target
from toolfuzz.judge import capture
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.judge.producer import answer_of, assembled

__all__ = ["ObservedCall", "PrefixAnswer", "Observation", "observe", "chunks_of", "parse_chunks", "crash_state", "TargetBlocked",
           "BadReturn"]


@dataclass(frozen=True, slots=True)
class ObservedCall:
    choice: int
    index: int | None
    id: str | None
    name: str | None
    arguments: str
    complete: bool
    status: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc = {"choice": self.choice, "index": self.index, "id": self.id, "name": self.name,
               "arguments": self.arguments, "complete": self.complete}
        if self.status is not None:
            doc["status"] = self.status
        return doc


@dataclass(frozen=True, slots=True)
class PrefixAnswer:
    """What a partial parser made of one prefix: of the judged text at ``text``, the first ``length`` code points."""

    text: int
    length: int
    value: Any = None
    raised: str | None = None
    crash_state: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"text": self.text, "length": self.length}
        if self.raised is not None:
            doc["raised"] = self.raised
            if self.crash_state:
                doc["crash_state"] = self.crash_state
        else:
            # As JSON text: a fixture's JSON is written with sorted keys, and the order of a shown object's
            # keys, an int against a float and the sign of -0.0 are what the partial level judges.
            doc["value"] = json.dumps(self.value, ensure_ascii=False)
        return doc


@dataclass(frozen=True, slots=True)
class Observation:
    """What a target did with a case: calls, or the way it failed to give them."""

    calls: tuple[ObservedCall, ...] = ()
    raised: str | None = None
    timed_out: bool = False
    blocked: str | None = None
    bad_return: str | None = None
    seconds: float = 0.0
    #: An sse-level target's dispatched events (``None`` for the other levels, which return calls).
    events: tuple[SSEEvent, ...] | None = None
    #: The stream error code a target that claims ``errors`` ended with (None: no error).
    error: str | None = None
    #: Where ``raised`` came from, without its message (:func:`crash_state`); None when nothing was raised.
    crash_state: str | None = None
    #: A partial-level target's answer for each prefix it was handed (None for the other levels).
    prefixes: tuple[PrefixAnswer, ...] | None = None
    #: A producer-level target's calls parsed from the whole text (None for the other levels); its ``calls``
    #: are its streamed deltas as the reference assembles them.
    whole: tuple[ObservedCall, ...] | None = None
    #: A producer's answer as it gave it (``toolfuzz.judge.producer.answer_of``'s shape): what a served
    #: producer hands back, and what a fixture shows of it.
    produced: Any = None
    #: What the target wrote to stdout and stderr during the call (:mod:`toolfuzz.judge.capture`); not part of
    #: what it answered, so two observations that differ only here are the same.
    output: Output | None = field(default=None, compare=False)
    #: The target raised MemoryError: what it did says how much it asked for, not how it read the stream.
    out_of_memory: bool = False

    @property
    def content(self) -> str | None:
        """A producer's streamed content (None for the other levels)."""
        return None if self.produced is None else self.produced["content"]

    @property
    def whole_content(self) -> str | None:
        """The content of a producer's whole-text parse (None for the other levels)."""
        return None if self.produced is None else self.produced["whole"]["content"]

    def to_json(self) -> dict[str, Any]:
        if self.blocked:
            return {"blocked": self.blocked}
        if self.timed_out:
            return {"timed_out": True}
        if self.out_of_memory:
            return {"memory": True}
        if self.raised:
            if self.crash_state:
                return {"raised": self.raised, "crash_state": self.crash_state}
            return {"raised": self.raised}
        if self.bad_return:
            return {"bad_return": self.bad_return}
        if self.events is not None:
            return {"events": [e.to_json() for e in self.events]}
        if self.prefixes is not None:
            return {"prefixes": [p.to_json() for p in self.prefixes]}
        if self.whole is not None:
            return {"calls": [c.to_json() for c in self.calls], "content": self.content,
                    "deltas": (self.produced or {}).get("deltas", []),
                    "whole": {"calls": [c.to_json() for c in self.whole], "content": self.whole_content}}
        doc: dict[str, Any] = {"calls": [c.to_json() for c in self.calls]}
        if self.error is not None:
            doc["error"] = self.error
        return doc


class TargetBlocked(BaseException):
    """Raised inside a target that tried to act on the world.  A BaseException so `except Exception` cannot eat it."""


class TargetTimedOut(BaseException):
    pass


#: Seconds between the alarms that follow a target's first, until it stops.
_AGAIN = 0.2


_state = threading.local()
_BLOCKED_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
                   "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "pty.spawn"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not getattr(_state, "active", False):
        return
    if event in _BLOCKED_EVENTS:
        _state.active = False
        raise TargetBlocked(f"{event} {_brief(args)}")
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writes = (isinstance(mode, str) and any(m in mode for m in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writes and isinstance(path, (str, bytes)) and not _in_temp(path):
            _state.active = False
            raise TargetBlocked(f"open for writing {path!r}")


_temp: str | None = None


def _in_temp(path: str | bytes) -> bool:
    assert _temp is not None
    p = os.path.realpath(os.fsdecode(path))
    return p == _temp or p.startswith(_temp + os.sep)


def _brief(args: tuple[Any, ...]) -> str:
    return repr(args)[:120]


def _install_hook() -> None:
    global _hook_installed, _temp
    if not _hook_installed:
        # Before the hook: the first gettempdir() writes a probe file, which
        # inside a target would re-enter the hook under tempfile's lock.
        _temp = os.path.realpath(tempfile.gettempdir())
        sys.addaudithook(_audit)  # audit hooks cannot be removed; it is inert outside a target call
        _hook_installed = True


def chunks_of(case: Case) -> list[bytes]:
    """The data payloads of the case's events, up to ``[DONE]`` in chat streams: what an events-level target is fed.

    The events are the ones known by construction (:func:`expected_events`),
    never the wire decoded again, so that no contestant's decoder decides
    what the others are fed.  Each payload is parsed afresh for each target,
    so that no target sees another's mutations.  The event dialects have no
    ``[DONE]``, and their ``event:`` name is also the data's ``type``: every
    payload is handed on, pings and errors included.
    """
    payloads: list[bytes] = []
    done = END_OF_STREAM.get(case.dialect)
    for event in expected_events(case):
        if event.data == done:
            break
        if event.data.strip(_ASCII_SPACE):  # the whitespace bytes.strip() knows: a blank payload is a keep-alive
            payloads.append(event.data.encode("utf-8", "surrogatepass"))
    return payloads


_ASCII_SPACE = " \t\n\r\x0b\x0c"


def parse_chunks(payloads: list[bytes]) -> list[dict[str, Any]]:
    """The chunks an events-level target is fed: each payload parsed afresh, up to the first undecodable one."""
    chunks = []
    for p in payloads:
        try:
            chunk = exact_json(p)
        except ValueError:
            try:
                chunk = json.loads(p.decode("utf-8", "replace"))
            except ValueError:
                break  # the stream ends at an undecodable chunk
        if not isinstance(chunk, dict):
            break
        chunks.append(chunk)
    return chunks


def observe(target: Target, case: Case, payloads: list[bytes] | None = None, timeout: float = 5.0,
            prefixes: list[tuple[int, int, str]] | None = None) -> Observation:
    """Run ``target`` on ``case`` and return what it did.

    A partial-level target is handed ``prefixes`` (``(text, length, prefix)`` each) when given, else the
    prefixes of the case's own texts (:func:`toolfuzz.judge.prefixes.texts_of`).
    """
    _install_hook()
    if target.level == "partial":
        arg: Any = prefixes if prefixes is not None else [
            (i, n, t.text[:n]) for i, t in enumerate(texts_of(case.expected)) for n in t.prefixes]
    elif target.level in ("bytes", "sse"):
        arg = list(case.reads)
    elif target.level == "producer":
        arg = [read.decode("utf-8", "surrogatepass") for read in case.reads]
    else:
        arg = parse_chunks(chunks_of(case) if payloads is None else payloads)
    prepare = target.extra.get("prepare")
    if prepare is not None:
        # A target backed by a long-running program (toolfuzz.targets.command) restarts
        # it here when it died: outside the hook, which refuses to start
        # processes, and outside the time limit, which is the case's.
        try:
            prepare(case)
        except Exception as e:  # noqa: BLE001 - a program that cannot restart fails this case
            return Observation(raised=f"{type(e).__name__}: {e}"[:300], crash_state=crash_state(e))
    capturing = capture.begin()
    try:
        seen = _called(target, case, arg, timeout)
    finally:
        output = capture.end() if capturing else None
    program = target.extra.get("output")
    if program is not None:
        # A program behind the subprocess protocol writes to its own pipes, not to this process's.
        output = (output or Output()) + program()
    return replace(seen, output=output) if output else seen


def _called(target: Target, case: Case, arg: Any, timeout: float) -> Observation:
    """The call itself, under its time limit and the audit hook, and what it returned, checked for shape."""
    use_alarm = timeout > 0 and threading.current_thread() is threading.main_thread()
    previous = None
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        # Again and again after the first: a raise that lands where Python only reports it (a garbage
        # collector's callback) or in a target's bare except is lost, and one alarm would leave the case to run
        # for ever.
        signal.setitimer(signal.ITIMER_REAL, timeout, _AGAIN)
    start = time.perf_counter()
    try:
        _state.active = _state.timing = True
        try:
            fn = target.fn_for(case.dialect)
            if target.level == "partial":
                result = _each_prefix(fn, arg)
            else:
                result = fn(arg, tools=case.tools, limits=case.limits) if target.takes_request else fn(arg)
        finally:
            _state.active = _state.timing = False
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except TargetBlocked as e:
        return Observation(blocked=str(e), seconds=time.perf_counter() - start)
    except TargetTimedOut:
        return Observation(timed_out=True, seconds=time.perf_counter() - start)
    except BadReturn as e:
        return Observation(bad_return=str(e)[:300], seconds=time.perf_counter() - start)
    except MemoryError:
        # Before the raise below, which would take it for a crash state to reduce: every probe would blow up
        # again.  In a worker, exiting_on_fatal ends the process before it gets here.
        return Observation(out_of_memory=True, seconds=time.perf_counter() - start)
    except RecursionError as e:
        return Observation(raised=f"RecursionError: {e}"[:300], crash_state=crash_state(e),
                           seconds=time.perf_counter() - start)
    except Exception as e:  # noqa: BLE001 - a target's exception is an outcome
        return Observation(raised=f"{type(e).__name__}: {e}"[:300], crash_state=crash_state(e),
                           seconds=time.perf_counter() - start)
    finally:
        if use_alarm and previous is not None:
            signal.signal(signal.SIGALRM, previous)
    seconds = time.perf_counter() - start
    try:
        if target.level == "sse":
            return Observation(events=_events_from(result), seconds=seconds)
        if target.level == "partial":
            return Observation(prefixes=result, seconds=seconds)
        if target.level == "producer":
            return _produced(result, seconds)
        error = None
        if "errors" in target.reports:
            result, error = _with_stream_error(result)
        calls = _calls_from(result, target)
    except ValueError as e:
        return Observation(bad_return=str(e), seconds=seconds)
    return Observation(calls=calls, seconds=seconds, error=error)


def _each_prefix(fn: Any, prefixes: list[tuple[int, int, str]]) -> tuple[PrefixAnswer, ...]:
    """A partial parser called on each prefix: a raise is that prefix's answer, not the end of the case."""
    answers = []
    for number, length, text in prefixes:
        try:
            value = fn(text)
        except BadReturn:
            raise  # an answer of no usable shape (a program's line that is not JSON) is the case's
        except Exception as e:  # noqa: BLE001 - a parser's exception is an outcome
            answers.append(PrefixAnswer(number, length, raised=f"{type(e).__name__}: {e}"[:300],
                                        crash_state=crash_state(e)))
            continue
        problem = _not_json(value, "", 0)
        if problem is not None:
            raise BadReturn(f"prefix {length} ({text[-30:]!r}): returned {problem}")
        answers.append(PrefixAnswer(number, length, value))
    return tuple(answers)


#: How deep a partial parser's value may nest before it is not taken as a value (JSON texts here nest less).
_MAX_DEPTH = 200


def _not_json(value: Any, path: str, depth: int) -> str | None:
    """What makes ``value`` other than a JSON value (dict with str keys, list, str, int, float, bool, None)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if depth > _MAX_DEPTH:
        return f"a value nested deeper than {_MAX_DEPTH}"
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = _not_json(item, f"{path}[{i}]", depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"an object with the key {key!r}, not a string, at {path or 'the top'}"
            problem = _not_json(item, f"{path}.{key}", depth + 1)
            if problem is not None:
                return problem
        return None
    return f"a {type(value).__name__} at {path or 'the top'}, not a JSON value"


#: How many of the target's own frames a crash state names, innermost first.
STATE_FRAMES = 3
#: Modules whose frames are the harness running a target, not the target.  toolfuzz.targets.command is
#: the harness's end of the subprocess protocol: the program's own code is on the far side of its pipe.
_HARNESS_MODULES = ("toolfuzz.judge", "toolfuzz.engine", "toolfuzz.targets.command")
#: Top-level packages whose frames only load or drive code, and say nothing about where it failed.
_MACHINERY = frozenset({"importlib", "runpy", "hypothesis"})
#: toolfuzz.judge.contestants names a target loaded by path after a hash of its path that changes from
#: one process to the next, and a script is "__main__" whatever its file; such a module is named by its
#: file instead, so that states stay comparable between runs and between a script and its import.
_LOADED_BY_PATH = "toolfuzz_target_"


def crash_state(error: BaseException) -> str:
    """Where ``error`` was raised, as ClusterFuzz's crash state: ``Type at module.function < module.caller``.

    The frames are the innermost :data:`STATE_FRAMES` of the target's own
    code (its module, the adapters, installed libraries), innermost first;
    the harness, the standard library and import machinery are passed over.
    No message and no line numbers: messages hold the case's data, and lines
    move between releases, so that neither would let equal crashes cluster.
    Call it where the error was caught: the catching frame is the reporter's
    and is not named.  A program behind the subprocess protocol says its own
    state (``toolfuzz.targets.command`` puts it on the exception it raises).
    """
    given = getattr(error, "crash_state", None)
    if isinstance(given, str) and given:
        return given
    frames: list[FrameType] = []
    tb = error.__traceback__
    # The first frame is the one that caught the error to report it (observe here, a protocol loop in a
    # program behind cmd:): the reporter, never the place that failed.
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    own: list[str] = []
    for frame in reversed(frames):
        where = _own_frame(frame)
        if where is not None:
            own.append(where)
            if len(own) == STATE_FRAMES:
                break
    name = type(error).__name__
    return f"{name} at {' < '.join(own)}" if own else name


def _own_frame(frame: FrameType) -> str | None:
    """``module.function`` for a frame of the target's own code, None for the harness's, stdlib's or machinery's."""
    code = frame.f_code
    module = frame.f_globals.get("__name__")
    if not isinstance(module, str) or module in ("", "__main__") or module.startswith(_LOADED_BY_PATH):
        module = os.path.splitext(os.path.basename(code.co_filename))[0] or "?"
    if any(module == m or module.startswith(m + ".") for m in _HARNESS_MODULES):
        return None
    if module.partition(".")[0] in _MACHINERY or _in_stdlib(code.co_filename):
        return None
    # The qualified name, so that two classes' methods of one name in one module are not one place.
    return f"{module}.{code.co_qualname}"


@functools.lru_cache(maxsize=4096)
def _in_stdlib(filename: str) -> bool:
    if filename.startswith("<frozen "):
        return True  # a module the interpreter was built with: os, codecs, importlib's bootstrap
    path = os.path.realpath(filename)
    stdlib, libraries = _library_prefixes()
    if not path.startswith(stdlib):
        return False
    # Installed libraries may live under the stdlib's folder (a venv's lib/pythonX.Y, a system
    # Python's site-packages), and the library under test is one of them.
    if path.startswith(libraries):
        return False
    return not {"site-packages", "dist-packages"} & set(path.split(os.sep))


@functools.lru_cache(maxsize=1)
def _library_prefixes() -> tuple[tuple[str, ...], tuple[str, ...]]:
    paths = sysconfig.get_paths()

    def prefixes(*keys: str) -> tuple[str, ...]:
        return tuple({os.path.join(os.path.realpath(paths[k]), "") for k in keys if paths.get(k)})

    return prefixes("stdlib", "platstdlib"), prefixes("purelib", "platlib")


def _on_alarm(signum: int, frame: Any) -> None:
    if getattr(_state, "timing", False):
        _state.active = False  # what the target does on its way out is not its work, and not blocked
        raise TargetTimedOut()


def _with_stream_error(result: Any) -> tuple[Any, str | None]:
    if not isinstance(result, dict) or set(result) != {"calls", "stream_error"}:
        raise ValueError("claims errors, so must return {\"calls\": [...], \"stream_error\": CODE or None}, "
                         f"not {type(result).__name__}")
    error = result["stream_error"]
    if error is not None and error not in ERROR_CODES:
        raise ValueError(f"stream_error {error!r} is not one of {', '.join(ERROR_CODES)} or None")
    return result["calls"], error


def _produced(result: Any, seconds: float) -> Observation:
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


def _calls_from(result: Any, target: Target) -> tuple[ObservedCall, ...]:
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


def _events_from(result: Any) -> tuple[SSEEvent, ...]:
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
