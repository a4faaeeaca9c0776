"""``toolfuzz serve TARGET...``: built-in targets over the subprocess protocol, for ``TARGET@ENV`` specs.

The far side of :mod:`toolfuzz.targets.environments`: run by the python of an environment of its own, it
speaks ``toolfuzz-subprocess/1`` (docs/subprocess.md) on stdin and stdout, and runs each request through
the same sandbox a run uses in process, so a raise carries the crash state of the target's own frames,
and what the target writes to stdout and stderr is captured there and sent with the answer (``output``).
The harness on the near side keeps the time limit (it kills and restarts the program past it).

Several targets are served by one program (one import of their library: a serving engine's parsers share one
import of the engine, about half a gigabyte): its handshake then lists them, and each request names the one it is
for (docs/subprocess.md).

The protocol goes out on a descriptor of its own, a copy of the stdout it was started with, and descriptor 1
is pointed at stderr: a library's thread that prints between requests writes to stderr, never into the
protocol.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from typing import Any

from toolfuzz.errors import UsageError
from toolfuzz.targets.specs import resolve
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.command import PROTOCOL
from toolfuzz.targets.base import LEVEL, Fed
from toolfuzz.vocabulary import Case, Outcome, Tool


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve built-in targets over the subprocess protocol (for TARGET@ENV)",
                       description="Speak toolfuzz-subprocess/1 on stdin and stdout for built-in targets: "
                       "what `--target TARGET@ENV` runs inside the environment ENV (toolfuzz env). With several "
                       "TARGETs, one program serves them all and each request names its target.")
    p.add_argument("targets", nargs="+", metavar="TARGET", help="a built-in target name")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    served: dict[str, Any] = {}
    for name in args.targets:
        for target in resolve(name):
            if target.takes_request and target.level != "producer":
                raise UsageError(f"{name} needs the case's tools and limits, which the protocol does not carry")
            if target.name in served:
                raise UsageError(f"{target.name} is named twice")
            served[target.name] = target
    out = _protocol_channel()
    hellos = [_hello(t) for t in served.values()]
    # One target says hello as any program does; several are listed, and each request names its own.
    _write(out, {"protocol": PROTOCOL, **hellos[0]} if len(hellos) == 1 else {"protocol": PROTOCOL, "targets": hellos})
    for line in sys.stdin:
        _write(out, _answer(served, line))
    return 0


def _hello(target: Any) -> dict[str, Any]:
    """What the handshake says of one served target."""
    hello = {"name": target.name, "version": target.version, "level": target.level,
             "claims": sorted(target.reports), "dialects": list(target.dialects)}
    if target.relaxations:
        hello["relaxations"] = sorted(target.relaxations)
    return hello


def _protocol_channel() -> Any:
    """The stdout this program was started with, for the protocol alone; descriptor 1 goes to stderr."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return channel


def _write(out: Any, doc: dict[str, Any]) -> None:
    # A lone surrogate goes as its own three bytes (surrogatepass), which json.loads on the near side reads back
    # as it was: as a \ud8xx escape, two lone halves side by side would be read as one character, and a library
    # that leaves them unjoined would pass for one that joins them.
    out.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass") + b"\n")
    out.flush()


def _answer(served: dict[str, Any], line: str) -> dict[str, Any]:
    try:
        request = json.loads(line)
        target = _addressed(served, request)
        dialect = request["dialect"]
        fed = LEVEL[target.level].fed
        if fed is Fed.PREFIXES:
            text = request["text"]
            if not isinstance(text, str):
                raise TypeError(f"text is {type(text).__name__}, not a string")
            seen = observe(target, Case(reads=(), expected=Outcome(), dialect=dialect), timeout=0,
                           prefixes=[(0, len(text), text)])
            return _as_answer(seen, target)
        if fed is Fed.BATCHES:
            # The batches as text, and the request's tools, which a parser reads the calls against.
            batches, tools = request["batches"], request["tools"]
            if not isinstance(batches, list) or not all(isinstance(b, str) for b in batches):
                raise TypeError("batches must be a list of strings")
            case = Case(reads=tuple(b.encode("utf-8", "surrogatepass") for b in batches), expected=Outcome(),
                        dialect=dialect, tools=tuple(Tool(t["name"], t["parameters"]) for t in tools))
            return _as_answer(observe(target, case, None, timeout=0), target, produced=True)
        if fed is Fed.CHUNKS:
            payloads = [json.dumps(c, separators=(",", ":")).encode("utf-8", "surrogatepass")
                        for c in request["chunks"]]
            case = Case(reads=(), expected=Outcome(), dialect=dialect)
        else:
            payloads = None
            case = Case(reads=tuple(base64.b64decode(r) for r in request["reads"]), expected=Outcome(),
                        dialect=dialect)
    except (ValueError, KeyError, TypeError) as e:
        return {"protocol_error": f"{type(e).__name__}: {e}"[:300]}
    # No time limit here: the near side's, which kills this program past it.
    return _as_answer(observe(target, case, payloads, timeout=0), target)


def _addressed(served: dict[str, Any], request: Any) -> Any:
    """The target a request is for: the one served, or the one it names among several."""
    if not isinstance(request, dict):
        raise TypeError(f"the request is {type(request).__name__}, not an object")
    if len(served) == 1 and "target" not in request:
        return next(iter(served.values()))
    name = request["target"]
    if name not in served:
        raise ValueError(f"target {name!r} is not served here ({', '.join(served)})")
    return served[name]


def _as_answer(seen: Observation, target: Any, produced: bool = False) -> dict[str, Any]:
    answer = _judged(seen, target, produced)
    if seen.output:
        answer["output"] = seen.output.to_json()
    return answer


def _judged(seen: Observation, target: Any, produced: bool) -> dict[str, Any]:
    # What only the near side can tell apart (a blocked action, a bad return) comes back as a raise of its own
    # type: the protocol has no other way to say it.
    what = (f"BadReturn: {seen.bad_return}" if seen.bad_return else f"TargetBlocked: {seen.blocked}" if seen.blocked
            else seen.raised)
    if what:
        kind, _, message = what.partition(": ")
        return {"error": {"type": kind, "message": message, "crash_state": str(seen.crash_state or kind)}}
    if seen.prefixes is not None:
        (shown,) = seen.prefixes
        if shown.raised is not None:
            kind, _, message = shown.raised.partition(": ")
            return {"error": {"type": kind, "message": message, "crash_state": str(shown.crash_state or kind)}}
        return {"value": shown.value}
    if seen.events is not None:
        return {"events": [{"event": e.event, "data": e.data, "id": e.id} for e in seen.events]}
    if produced:
        return {"produced": seen.produced}
    answer: dict[str, Any] = {"calls": [c.to_json() for c in seen.calls]}
    if "errors" in target.reports:
        answer["stream_error"] = seen.error
    return answer
