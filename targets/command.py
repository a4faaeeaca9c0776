"""A target that is another program: one long-running child process, one JSON line in and one out per case.

``--target cmd:"node assemble.js"`` starts the command once, reads its
handshake line (name, version, level, claims, dialects, relaxations), and from then on
each case is one request line written to its stdin and one answer line read
from its stdout.  docs/subprocess.md is the protocol; this module is the
harness's side of it.

The harness's audit hook refuses to start processes during a target call,
and rightly so: the child is started here, before any case, and restarted
(when it died or was killed mid-case) by :meth:`Child.prepare`, which
``toolfuzz.judge.sandbox`` runs before the call, outside the hook.  Reading and
writing the pipes raises no audit event the hook refuses.

Inside a call, whatever went wrong is told apart:

* the program's own exception (``{"error": ...}``): raised, under the
  exception's own type name, with the crash state the program gives
  (``crash_state``), else one made of that type name;
* ``{"protocol_error": ...}`` (it could not read the request): raised as
  :class:`ProtocolError`, so it is not mistaken for the assembler's failure;
* no answer before the harness's time limit: timed out (the harness's
  SIGALRM interrupts the wait); the child is killed, since its next line
  would belong to this case, and restarted for the next one;
* the child exited: raised as :class:`ChildDied`, with its exit status and
  the tail of its stderr;
* a protocol line (one that begins with ``{``) that is not JSON, not an
  answer, or longer than the bound: :class:`toolfuzz.targets.base.BadReturn`,
  reported as ``bad_return``.

A line that does not begin with ``{`` is not the protocol's: a library's
print, say.  It is kept, with what the program wrote to stderr meanwhile, as
the case's output (:meth:`Child.output`, shown in its finding), and the
answer is still awaited.

Every program ends with the harness: killed with its process group when a
case times out or the target is stopped, and at exit (:func:`stop_all`, which
a worker calls itself, since it ends without atexit handlers).  On Linux the
kernel kills it too when the process that started it dies, SIGKILL included
(``PR_SET_PDEATHSIG``, set by a launcher that then becomes the program).
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from typing import Any, BinaryIO

from toolfuzz.hash_seed import pinned
from toolfuzz.identity import CrashState
from toolfuzz.vocabulary import DIALECTS, OUTPUT_KEPT, TEXT_DIALECTS, Output, kept_from, kept_output
from toolfuzz.targets.base import (ALL_CLAIMS, ANY_SCOPE, LEVEL, BadReturn, Fed, LEVELS, Limit, PLAIN_CLAIMS,
                                   RELAXATIONS, Scope, Target)

__all__ = ["PROTOCOL", "MAX_ANSWER_BYTES", "CommandError", "ChildRaised", "ChildDied", "ProtocolError", "Child",
           "Lane", "command_targets", "HANDSHAKE_SECONDS", "stop_all"]

PROTOCOL = "toolfuzz-subprocess/1"
#: Longest answer line read back; a longer one is a bad return, and the child is restarted.
MAX_ANSWER_BYTES = 16 * 1024 * 1024
#: Longest handshake line.
MAX_HANDSHAKE_BYTES = 64 * 1024
#: How long a starting program has to write its handshake.
HANDSHAKE_SECONDS = 10.0
#: How long to wait for an answer when no harness time limit is running (off the main thread).
FALLBACK_SECONDS = 60.0
_STDERR_TAIL = 600
#: Run by this Python before the program, in the process that then becomes the program (exec keeps the pid and
#: the setting): the kernel sends it SIGKILL when the thread that started it ends, this process's death included,
#: however it dies.  A parent that died before the setting took is seen by the pid the launcher was given.
_LAUNCHER = ("import ctypes, os, sys\n"
             "ctypes.CDLL(None).prctl(1, 9)\n"  # PR_SET_PDEATHSIG, SIGKILL
             "if os.getppid() != int(sys.argv[1]): os._exit(1)\n"
             "os.execv(sys.argv[2], sys.argv[3:])\n")


class CommandError(Exception):
    """The command cannot be started, or its handshake is missing or wrong."""


class ChildRaised(Exception):
    """The program reported its own exception; subclasses carry the program's type name (see :func:`_raised`)."""

    #: Where the program says it raised (``toolfuzz.judge.crash_state.crash_state``): this side's
    #: traceback ends in the protocol's glue, and only the program knows its own frames.
    crash_state: CrashState | None = None


class ChildDied(Exception):
    """The program exited (or closed its stdout) while a case was running."""


class ProtocolError(Exception):
    """The program said it could not read the request: a fault of the program's glue, not of its assembler."""


class Child:
    """One long-running program speaking the protocol, restarted when it dies."""

    def __init__(self, argv: list[str], *, level: str = "events", handshake_seconds: float = HANDSHAKE_SECONDS,
                 max_answer: int = MAX_ANSWER_BYTES) -> None:
        self.argv = list(argv)
        self.handshake_seconds = handshake_seconds
        self.max_answer = max_answer
        #: The targets its handshake describes: one, or those it serves together (``toolfuzz serve A B``).
        self.hellos: list[dict[str, Any]] | None = None
        self.level = level
        #: The dialect of the case about to run (the call itself is handed only the chunks or reads).
        self.dialect = DIALECTS[0]
        self.cases = 0
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: BinaryIO | None = None
        self._buffer = b""
        #: Lines of the program's stdout that are not the protocol's, since the last case began.
        self._stray = _Kept()
        #: What the last case wrote besides its answer (:meth:`output`).
        self._output = Output()
        #: A request was written and its answer not read whole: the program is busy with a case that is over.
        self._busy = False
        _live.add(self)

    # -- life cycle (outside any target call) --------------------------------

    @property
    def pid(self) -> int | None:
        """The running program's process id, or None."""
        return self._proc.pid if self._proc is not None else None

    @property
    def hello(self) -> dict[str, Any] | None:
        """The handshake's first (for most programs, only) target."""
        return self.hellos[0] if self.hellos else None

    def start(self) -> list[dict[str, Any]]:
        """Start the program and read its handshake; :class:`CommandError` if either fails."""
        self.stop()
        self._stderr = tempfile.TemporaryFile()
        try:
            # A session of its own, so that stop() reaches whatever the command
            # started in turn (a shell, npx, ...), and a terminal's Ctrl-C
            # reaches only toolfuzz, which then stops it. A Python program runs under toolfuzz's hash seed
            # (toolfuzz.hash_seed), so that one restarted mid-run behaves as before.
            self._proc = subprocess.Popen(_launched(self.argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, bufsize=0, start_new_session=True,
                                          env=pinned())
        except OSError as e:
            self.stop()
            raise CommandError(f"cannot start {self.argv[0]}: {e.strerror or e}") from None
        self.starts += 1
        self._buffer = b""
        self._stray = _Kept()
        try:
            line = self._read_line(time.monotonic() + self.handshake_seconds, MAX_HANDSHAKE_BYTES)
        except TimeoutError:
            stray = self._stray.text()
            self.stop()
            said = f"; its stdout had only: {stray[-200:]!r}" if stray else ""
            raise CommandError(f"no handshake line within {self.handshake_seconds:g} s{said}{self._tail()}") from None
        except (ChildDied, BadReturn) as e:
            self.stop()
            raise CommandError(f"no handshake: {e}") from None
        try:
            hellos = _handshakes(line, self.level)
        except CommandError:
            self.stop()
            raise
        if self.hellos is not None and _served(hellos) != _served(self.hellos):
            self.stop()
            raise CommandError(f"restarted as {_said(hellos)}, not as {_said(self.hellos)}")
        self.hellos = hellos
        self.level = hellos[0]["level"]
        return hellos

    def prepare(self, case: Any = None) -> None:
        """Before each case: note its dialect, and restart the program if it is not running (it died, or a case
        killed it)."""
        self.dialect = getattr(case, "dialect", None) or DIALECTS[0]
        if self._busy:
            # A case ended without its answer and the program was not stopped (the time limit struck again
            # on the way out): it is still at that case, and its answer would be taken for this one's.
            self.stop()
        if self._proc is None or self._proc.poll() is not None:
            self.start()

    def stop(self) -> None:
        """Kill the program and everything it started, and forget it; the next prepare() starts it afresh.

        The program is forgotten last: a stop cut short (the time limit strikes again and again until the case
        is over) leaves it known, and still busy, for the next prepare() to stop."""
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()
        self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._buffer = b""
        self._busy = False

    def output(self) -> Output:
        """What the last case wrote besides its answer: its stray stdout lines and its stderr (the program's own
        capture added, when it sends one); asked once, after the call."""
        output, self._output = self._output, Output()
        return output

    # -- one case (inside the target call) -----------------------------------

    def __call__(self, arg: Any, tools: Any = (), limits: Any = None) -> Any:
        """One case; ``tools`` (the request's, for a producer) go with it, ``limits`` do not: the harness keeps
        its own bounds around the program."""
        return self.ask(None, self.level, self.dialect, arg, tools)

    def ask(self, target: str | None, level: str, dialect: str, arg: Any, tools: Any = ()) -> Any:
        """One case for ``target`` among those the program serves (None: its only one)."""
        self._output = Output()
        if self._proc is None:
            raise ChildDied("the program is not running")
        self.cases += 1
        request = _request(self.cases, level, dialect, arg, tools, target)
        waited = self._wait_limit()
        self._stray = _Kept()
        stderr_from = self._stderr_size()
        try:
            try:
                stale = self._pending()
                if stale:
                    raise BadReturn(f"the program wrote output no request asked for: {stale[:80]!r}")
                self._busy = True
                self._write(request)
                line = self._read_line(time.monotonic() + waited, self.max_answer)
                extra = self._sift()
                if extra:
                    raise BadReturn(f"the program wrote more than one line: {extra[:80]!r} follows its answer")
                self._busy = False
            finally:
                self._output = Output(self._stray.text(), self._stderr_since(stderr_from))
        except TimeoutError:
            self.stop()
            raise TimeoutError(f"no answer within {waited:g} s") from None
        except BaseException:
            # Timed out (the harness's alarm), died, oversized, two answers, interrupted:
            # the next line it writes would be taken for the next case's answer.
            self.stop()
            raise
        doc = _document(line)
        self._output += _sent_output(doc)
        return _answer(doc, line, {"sse": "events", "partial": "value", "producer": "produced"}.get(level, "calls"))

    def _wait_limit(self) -> float:
        # The harness's SIGALRM is the time limit; this only bounds a wait
        # that no alarm will interrupt (a call off the main thread).
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        return remaining + 1.0 if remaining > 0 else FALLBACK_SECONDS

    def _write(self, data: bytes) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        try:
            while view:
                written = os.write(fd, view)
                view = view[written:]
        except BrokenPipeError:
            raise self._died() from None

    def _pending(self) -> bytes:
        """The protocol lines the program wrote since its last answer, read without waiting (:meth:`_sift`)."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while select.select([fd], [], [], 0)[0]:
            data = os.read(fd, 65536)
            if not data:
                break  # end of file: the write or read that follows says the program died
            self._buffer += data
        return self._sift()

    def _sift(self) -> bytes:
        """The protocol lines among the bytes read and not yet taken (a line begun counts); the stray lines among
        them are kept as the case's output, and a stray line begun is left to finish."""
        pending = b""
        while self._buffer:
            end = self._buffer.find(b"\n")
            line = self._buffer if end < 0 else self._buffer[:end + 1]
            if _protocol(line):
                pending += line
            elif end < 0:
                break
            else:
                self._stray.add(line)
            self._buffer = self._buffer[len(line):]
        return pending

    def _read_line(self, deadline: float, limit: int) -> bytes:
        """The next protocol line; the stray lines before it are kept as the case's output."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line, self._buffer = self._buffer[:end], self._buffer[end + 1:]
                if _protocol(line):
                    return line
                self._stray.add(line + b"\n")
                continue
            if len(self._buffer) > limit:
                raise BadReturn(f"the answer line is longer than {limit} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError()
            if not select.select([fd], [], [], left)[0]:
                continue
            data = os.read(fd, 1 << 20)
            if not data:
                raise self._died()
            self._buffer += data

    def _died(self) -> ChildDied:
        assert self._proc is not None
        try:
            status = self._proc.wait(timeout=2)
            how = f"exited with status {status}" if status >= 0 else f"was killed by signal {-status}"
        except subprocess.TimeoutExpired:
            how = "closed its stdout"
        return ChildDied(f"the program {how}{self._tail()}")

    def _stderr_size(self) -> int:
        return os.fstat(self._stderr.fileno()).st_size if self._stderr is not None else 0

    def _stderr_since(self, start: int) -> str:
        """What the program wrote to stderr from ``start`` on, kept by its two ends (read without moving the
        offset the program writes at: its stderr is this file's own description)."""
        return kept_from(self._stderr.fileno(), start, self._stderr_size()) if self._stderr is not None else ""

    def _tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - _STDERR_TAIL))
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return f"; stderr ends: {' | '.join(text.splitlines()[-4:])}" if text else ""


class Lane:
    """One of the targets a program serves together (``toolfuzz serve A B``): its cases go to that program
    with its name, and its life cycle is the program's, whose restart serves them all again."""

    def __init__(self, child: Child, name: str, level: str) -> None:
        self.child, self.name, self.level = child, name, level
        self.dialect = DIALECTS[0]

    def prepare(self, case: Any = None) -> None:
        self.dialect = getattr(case, "dialect", None) or DIALECTS[0]
        self.child.prepare(case)

    def __call__(self, arg: Any, tools: Any = (), limits: Any = None) -> Any:
        return self.child.ask(self.name, self.level, self.dialect, arg, tools)


def _served(hellos: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(h["name"], h["level"]) for h in hellos]


def _said(hellos: list[dict[str, Any]]) -> str:
    return ", ".join(f"{name!r} at level {level}" for name, level in _served(hellos))


class _Kept:
    """Bytes kept by their two ends as they come: the first and the last :data:`OUTPUT_KEPT`, and how many."""

    def __init__(self) -> None:
        self.head = self.tail = b""
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = OUTPUT_KEPT - len(self.head)
        if room > 0:
            self.head, data = self.head + data[:room], data[room:]
        if data:
            self.tail = (self.tail + data)[-OUTPUT_KEPT:]

    def text(self) -> str:
        return kept_output(self.head + self.tail, self.total) if self.total else ""


def _protocol(line: bytes) -> bool:
    """Whether ``line`` is the protocol's: every protocol line is a JSON object, so it begins with ``{``."""
    return line.lstrip(b" \t\r").startswith(b"{")


def _launched(argv: list[str]) -> list[str]:
    """``argv`` as started: on Linux through :data:`_LAUNCHER`, so that it cannot outlive this process."""
    path = shutil.which(argv[0])
    if not sys.platform.startswith("linux") or path is None or not sys.executable:
        return argv  # a command that cannot be found fails in Popen as it would without the launcher
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(os.getpid()), path, *argv]


_live: "weakref.WeakSet[Child]" = weakref.WeakSet()


@atexit.register
def stop_all() -> None:
    """Stop every program this process started: at exit, and from a process that ends without atexit handlers."""
    for child in list(_live):
        child.stop()


def _handshakes(line: bytes, default_level: str) -> list[dict[str, Any]]:
    """The targets a handshake describes: the program's one, or each of those a ``targets`` list names."""
    try:
        doc = json.loads(line)
    except ValueError:
        raise CommandError(f"the first line is not a JSON handshake: {line[:80]!r}") from None
    if not isinstance(doc, dict):
        raise CommandError(f"the handshake is {type(doc).__name__}, not an object")
    if doc.get("protocol") != PROTOCOL:
        raise CommandError(f"handshake field 'protocol' is {doc.get('protocol')!r}, not {PROTOCOL!r}")
    if "targets" not in doc:
        return [_handshake(doc, default_level, "")]
    listed = doc["targets"]
    if not isinstance(listed, list) or not listed or set(doc) != {"protocol", "targets"}:
        raise CommandError("handshake field 'targets' must be a non-empty list of objects, beside 'protocol' alone")
    hellos = []
    for i, entry in enumerate(listed):
        if not isinstance(entry, dict):
            raise CommandError(f"handshake field 'targets[{i}]' is {type(entry).__name__}, not an object")
        hellos.append(_handshake(entry, default_level, f"targets[{i}]."))
    names = [h["name"] for h in hellos]
    if len(set(names)) != len(names):
        raise CommandError(f"handshake field 'targets' names a target twice: {', '.join(names)}")
    return hellos


def _handshake(doc: dict[str, Any], default_level: str, at: str) -> dict[str, Any]:
    """One target's description, its fields named from ``at`` on (``targets[1].``) in what is wrong."""
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise CommandError(f"handshake field '{at}name' must be a non-empty string of at most 100 characters")
    version = doc.get("version", "")
    if not isinstance(version, str):
        raise CommandError(f"handshake field '{at}version' must be a string")
    level = doc.get("level", default_level)
    if level not in LEVELS:
        raise CommandError(f"handshake field '{at}level' must be one of {', '.join(LEVELS)}, not {level!r}")
    # A partial parser behind a pipe is judged on numbers by value unless it says it keeps their types.
    claims = doc.get("claims", [] if level == "partial" else sorted(PLAIN_CLAIMS))
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims) or set(claims) - ALL_CLAIMS:
        raise CommandError(f"handshake field '{at}claims' must be a list drawn from {', '.join(sorted(ALL_CLAIMS))}")
    relaxations = doc.get("relaxations", [])
    if not isinstance(relaxations, list) or not all(isinstance(r, str) and r in RELAXATIONS for r in relaxations):
        raise CommandError(f"handshake field '{at}relaxations' must be a list drawn from {', '.join(RELAXATIONS)}")
    dialects = doc.get("dialects", list(DIALECTS))
    if not isinstance(dialects, list) or not all(isinstance(d, str) for d in dialects):
        raise CommandError(f"handshake field '{at}dialects' must be a list of strings")
    if not set(dialects) & set(DIALECTS + TEXT_DIALECTS):
        raise CommandError(f"handshake field '{at}dialects' names none that toolfuzz generates "
                           f"({', '.join(DIALECTS + TEXT_DIALECTS)})")
    return {"name": name, "version": version, "level": level, "claims": claims, "dialects": dialects,
            "scope": _scope(doc.get("scope", {}), at),
            "relaxations": relaxations}


def _scope(doc: Any, at: str = "") -> Scope:
    """The handshake's ``scope``: what the program's library promises to read (docs/severity.md)."""
    if not isinstance(doc, dict) or set(doc) - _SCOPE_FIELDS:
        raise CommandError(f"handshake field '{at}scope' must be an object with some of {', '.join(sorted(_SCOPE_FIELDS))}")
    names = {}
    for key in ("servers", "specs", "promises"):
        value = doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise CommandError(f"handshake field '{at}scope.{key}' must be a list of strings")
        names[key] = frozenset(value)
    choices = doc.get("choices")
    if choices is not None and (type(choices) is not int or choices < 1):
        raise CommandError(f"handshake field '{at}scope.choices' must be a positive integer or null")
    if not isinstance(doc.get("integer_ids", True), bool):
        raise CommandError(f"handshake field '{at}scope.integer_ids' must be true or false")
    scope = Scope(servers=names["servers"] or ANY_SCOPE.servers, specs=names["specs"], choices=choices,
                  integer_ids=doc.get("integer_ids", True), promises=names["promises"],
                  limits=_limits(doc.get("limits", []), at), surface=str(doc.get("surface", ""))[:200])
    try:
        scope.check()
    except ValueError as e:
        raise CommandError(f"handshake field '{at}scope': {e}") from None
    return scope


_SCOPE_FIELDS = frozenset({"servers", "specs", "choices", "integer_ids", "promises", "limits", "surface"})


def _limits(doc: Any, at: str = "") -> tuple[Limit, ...]:
    """The handshake's ``scope.limits``: behaviours the library documents, ``{"features", "kinds", "cite"}`` each."""
    wrong = CommandError(f"handshake field '{at}scope.limits' must be a list of objects "
                         '{"features": [...], "kinds": [...], "cite": "..."} with at least one feature and a cite')
    if not isinstance(doc, list):
        raise wrong
    limits = []
    for item in doc:
        if not isinstance(item, dict) or set(item) - {"features", "kinds", "cite"}:
            raise wrong
        features, kinds, cite = item.get("features"), item.get("kinds", []), item.get("cite")
        if not (isinstance(features, list) and features and isinstance(kinds, list)
                and all(isinstance(v, str) for v in features + kinds) and isinstance(cite, str) and cite):
            raise wrong
        limits.append(Limit(frozenset(features), frozenset(kinds), cite[:200]))
    return tuple(limits)


def _request(number: int, level: str, dialect: str, arg: Any, tools: Any = (), target: str | None = None) -> bytes:
    doc: dict[str, Any] = {"case": number, "dialect": dialect}
    if target is not None:
        doc["target"] = target
    fed = LEVEL[level].fed
    if fed is Fed.CHUNKS:
        doc["chunks"] = arg
    elif fed is Fed.PREFIXES:
        doc["text"] = arg
    elif fed is Fed.BATCHES:
        doc["batches"] = arg
        doc["tools"] = [{"name": t.name, "parameters": t.parameters} for t in tools]
    else:
        doc["reads"] = [base64.b64encode(r).decode("ascii") for r in arg]
    # ASCII out: a lone surrogate (a chunk may hold one) becomes a \ud8xx escape, which any JSON reader takes.
    return json.dumps(doc, separators=(",", ":")).encode("ascii") + b"\n"


def _document(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        raise BadReturn(f"the answer is not JSON: {line[:80]!r}") from None


def _sent_output(doc: Any) -> Output:
    """The ``output`` an answer may carry: what the program's own capture had of the case (``toolfuzz serve``'s)."""
    sent = doc.get("output") if isinstance(doc, dict) else None
    if not isinstance(sent, dict):
        return Output()
    return Output(*(kept_output(text.encode("utf-8", "replace")) if isinstance(text, str) else ""
                    for text in (sent.get("stdout"), sent.get("stderr"))))


def _answer(doc: Any, line: bytes, key: str) -> Any:
    if not isinstance(doc, dict) or len({key, "error", "protocol_error"} & doc.keys()) != 1:
        raise BadReturn(f"the answer is not an object with one of {key}, error, protocol_error: {line[:80]!r}")
    if "protocol_error" in doc:
        raise ProtocolError(str(doc["protocol_error"])[:300])
    if "error" in doc:
        raise _raised(doc["error"])
    if key == "calls" and "stream_error" in doc:
        # A program that claims errors says how its stream ended, as an in-process target does.
        return {"calls": doc["calls"], "stream_error": doc["stream_error"]}
    return doc[key]  # its shape is checked by the harness, as any target's return value is


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")
_raised_types: dict[str, type[ChildRaised]] = {}


def _raised(error: Any) -> ChildRaised:
    """The program's exception as one of ours that carries its type name, since the report shows the type."""
    if not isinstance(error, dict):
        raised = ChildRaised(str(error)[:300])
        raised.crash_state = _state_of_message(str(error))
        return raised
    name, message = error.get("type"), str(error.get("message", ""))[:300]
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raised = ChildRaised(message)
        raised.crash_state = _state_of_message(message)
    elif name not in _raised_types and len(_raised_types) >= 256:
        raised = ChildRaised(f"{name}: {message}")
        raised.crash_state = CrashState(name)
    else:
        if name not in _raised_types:
            _raised_types[name] = type(name, (ChildRaised,), {"__module__": __name__})
        raised = _raised_types[name](message)
        raised.crash_state = CrashState(name)
    given = error.get("crash_state")
    if isinstance(given, str) and given.strip():
        # One line, bounded: it is a key findings are clustered by, not a report.
        raised.crash_state = CrashState.parse(" ".join(given.split())[:300])
    return raised


def _state_of_message(message: str) -> CrashState:
    """The crash state of an error that names no type: the message's "Type:" prefix, if it has one."""
    head = message.partition(":")[0].strip()
    return CrashState(head if ":" in message and _IDENTIFIER.fullmatch(head) else "raised")


def command_targets(argv: list[str], *, level: str = "events", summary: str = "",
                    handshake_seconds: float = HANDSHAKE_SECONDS) -> list[Target]:
    """Start ``argv`` and make a target of each its handshake describes, all served by that one program;
    :class:`CommandError` if it cannot start or say hello.

    ``level`` is the level of a program whose handshake names none.
    """
    child = Child(argv, level=level, handshake_seconds=handshake_seconds)
    hellos = child.start()
    fns: list[Any] = [child] if len(hellos) == 1 else [Lane(child, h["name"], h["level"]) for h in hellos]
    # A producer parses against the request's tools: they go with each case (docs/subprocess.md).
    return [Target(name=hello["name"], fn=fn, level=hello["level"], reports=frozenset(hello["claims"]),
                   dialects=tuple(hello["dialects"]), version=hello["version"],
                   relaxations=frozenset(hello["relaxations"]),
                   takes_request=hello["level"] == "producer",
                   summary=summary or f"{' '.join(argv)} over the subprocess protocol", scope=hello["scope"],
                   extra={"prepare": fn.prepare, "child": child, "output": child.output})
            for hello, fn in zip(hellos, fns)]
