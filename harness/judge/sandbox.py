"""Running one target on one case, safely, and turning whatever it did into an observation.

A target is somebody else's code.  It runs between the walls of :mod:`toolfuzz.judge.guard` (no socket,
process or write outside the temporary folder; a time limit per case); whatever it raises is an outcome, with
its crash state (:mod:`toolfuzz.judge.crash_state`).  Whatever it writes to stdout and stderr is captured
(:mod:`toolfuzz.judge.capture`) and kept with the observation, out of the run's own output.  Its return value
is checked for shape (:mod:`toolfuzz.judge.answers`) before anything is compared.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import replace
from typing import Any

from toolfuzz.vocabulary import Case, Output
from toolfuzz.targets.base import LEVEL, Answers, BadReturn, Fed, Target
from toolfuzz.judge import capture, guard
from toolfuzz.judge.answers import calls_from, events_from, not_json, produced, with_stream_error
from toolfuzz.judge.crash_state import crash_state
from toolfuzz.judge.feeding import chunks_of, parse_chunks
from toolfuzz.judge.guard import TargetBlocked, TargetTimedOut
from toolfuzz.judge.observation import Observation, PrefixAnswer
from toolfuzz.judge.prefixes import texts_of

__all__ = ["observe"]


def observe(target: Target, case: Case, payloads: list[bytes] | None = None, timeout: float = 5.0,
            prefixes: list[tuple[int, int, str]] | None = None) -> Observation:
    """Run ``target`` on ``case`` and return what it did.

    A partial-level target is handed ``prefixes`` (``(text, length, prefix)`` each) when given, else the
    prefixes of the case's own texts (:func:`toolfuzz.judge.prefixes.texts_of`).
    """
    guard.install_hook()
    fed = LEVEL[target.level].fed
    if fed is Fed.PREFIXES:
        arg: Any = prefixes if prefixes is not None else [
            (i, n, t.text[:n]) for i, t in enumerate(texts_of(case.expected)) for n in t.prefixes]
    elif fed is Fed.READS:
        arg = list(case.reads)
    elif fed is Fed.BATCHES:
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
        previous = signal.signal(signal.SIGALRM, guard.on_alarm)
        # Again and again after the first: a raise that lands where Python only reports it (a garbage
        # collector's callback) or in a target's bare except is lost, and one alarm would leave the case to run
        # for ever.
        signal.setitimer(signal.ITIMER_REAL, timeout, guard.AGAIN)
    start = time.perf_counter()
    try:
        guard.state.active = guard.state.timing = True
        try:
            fn = target.fn_for(case.dialect)
            if LEVEL[target.level].fed is Fed.PREFIXES:
                result = _each_prefix(fn, arg)
            else:
                result = fn(arg, tools=case.tools, limits=case.limits) if target.takes_request else fn(arg)
        finally:
            guard.state.active = guard.state.timing = False
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
        answers = LEVEL[target.level].answers
        if answers is Answers.EVENTS:
            return Observation(events=events_from(result), seconds=seconds)
        if answers is Answers.PREFIX_VALUES:
            return Observation(prefixes=result, seconds=seconds)
        if answers is Answers.STREAMED:
            return produced(result, seconds)
        error = None
        if "errors" in target.reports:
            result, error = with_stream_error(result)
        calls = calls_from(result, target)
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
        problem = not_json(value, "", 0)
        if problem is not None:
            raise BadReturn(f"prefix {length} ({text[-30:]!r}): returned {problem}")
        answers.append(PrefixAnswer(number, length, value))
    return tuple(answers)
