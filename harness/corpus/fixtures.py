"""The fixture file: one case, self-contained, as one diff-friendly JSON document.

Layout (``"format": "toolfuzz-fixture/1"``)::

    {
      "format": "toolfuzz-fixture/1",
      "name": "two-calls-interleaved",         # a person's name for the case
      "description": "...",                     # what it shows, one paragraph
      "statement": "...",                       # optional: what goes wrong for a user of the library, one line
      "dialect": "openai-chat",
      "features": ["openai", "interleaved"],    # profiles and transport variants
      "tools": [{"name": ..., "parameters": {...}}],
      "limits": {"max_events": ..., "max_argument_bytes": ..., "max_stream_bytes": ...},
      "wire": {"encoding": "utf-8", "lines": ["data: {...}\\n", "\\n", ...], "cuts": [17, 40]},
      "expected": {"calls": [...], "error": null},
      "events": [{"event": "message", "data": "...", "id": ""}],  # optional: the SSE events, by construction
      "observed": {"<target>": {...}},          # what each target made of it, and, under "output", what it
                                                # wrote to stdout and stderr on the case ({"stdout": "..."})
      "found": {"by": "hand", ...},             # how the case was found
      "variants": [{"signature": ..., "name": ..., "statement": ..., "case": {"dialect", "features", "tools",
                    "limits", "wire", "expected", "events"}}]   # optional: fixtures corpus merge folded in
    }

The wire is kept as readable lines (each with its own line ending) when the
bytes are UTF-8, and as base64 otherwise.  ``cuts`` are byte offsets into the
wire where one network read ends and the next begins; a cut may fall inside
a multibyte character, which is the point.  ``limits`` may be left out for
the defaults.

Fixture files are inputs from strangers: loading one never evaluates
anything, and every problem is one :class:`FixtureError` naming the file and
the field.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolfuzz.identity import CrashState
from toolfuzz.vocabulary import DIALECTS, STATUSES, TEXT_DIALECTS, Call, Case, Limits, Outcome, SSEEvent, StreamError, Tool, version_key

__all__ = [
    "FORMAT",
    "MAX_FIXTURE_BYTES",
    "Fixture",
    "Variant",
    "FixtureError",
    "load",
    "loads",
    "dumps",
    "write_atomic",
    "iter_fixture_paths",
    "outcome_from_json",
]

FORMAT = "toolfuzz-fixture/1"
#: A fixture is a small reproducer; anything larger is refused before parsing
#: so that a hostile file cannot make the loader hold gigabytes.
MAX_FIXTURE_BYTES = 64 * 1024 * 1024

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


class FixtureError(ValueError):
    """A fixture file that cannot be used, with the file and the field at fault."""

    def __init__(self, source: str, field: str, message: str) -> None:
        self.source, self.field, self.message = source, field, message
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Variant:
    """A fixture ``toolfuzz corpus merge`` folded into this one (the same root cause met another way): what it
    held, kept so that no merge loses a case or what a person wrote of it."""

    signature: str
    case: Case
    name: str = ""
    statement: str = ""

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"signature": self.signature, "name": self.name, "case": _case_to_json(self.case)}
        if self.statement:
            doc["statement"] = self.statement
        return doc


@dataclass(frozen=True)
class Fixture:
    case: Case
    name: str
    description: str = ""
    observed: dict[str, Any] = field(default_factory=dict)
    found: dict[str, Any] = field(default_factory=lambda: {"by": "hand"})
    #: What goes wrong for a user of the library, one line written by a person; optional.
    statement: str = ""
    #: Regression ranges found by ``toolfuzz bisect --record``, by target: ``{"package", "tested": {version:
    #: "fails" | "passes" | "changed" | "error"}, "introduced", "fixed"}`` (oldest release first).
    history: dict[str, Any] = field(default_factory=dict)
    #: Fixtures folded into this one by ``toolfuzz corpus merge``, one per signature.
    variants: tuple[Variant, ...] = ()

    @property
    def crash_state(self) -> CrashState | None:
        """The crash state the raise it was found for was recorded at (``found.crash_state``), if any."""
        return CrashState.read(self.found.get("crash_state"))

    def observed_state(self, target: str) -> CrashState | None:
        """The crash state ``target``'s recorded observation says it raised at, if it says one."""
        observation = (self.observed.get(target) or {}).get("observation")
        return CrashState.read(observation.get("crash_state")) if isinstance(observation, dict) else None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "format": FORMAT,
            "name": self.name,
            "description": self.description,
            **_case_to_json(self.case),
            "observed": self.observed,
            "found": self.found,
        }
        if self.statement:
            doc["statement"] = self.statement
        if self.history:
            doc["history"] = self.history
        if self.variants:
            doc["variants"] = [v.to_json() for v in self.variants]
        return doc


def _case_to_json(case: Case) -> dict[str, Any]:
    """A case's fields, as a fixture holds them at its top level and a variant under ``case``."""
    doc: dict[str, Any] = {
        "dialect": case.dialect,
        "features": list(case.features),
        "tools": [t.to_json() for t in case.tools],
        "wire": _wire_to_json(case.wire, case.cuts),
        "expected": case.expected.to_json(),
    }
    if case.limits != Limits():
        doc["limits"] = case.limits.to_json()
    if case.events is not None:
        doc["events"] = [e.to_json() for e in case.events]
    return doc


def history_text(entry: dict[str, Any]) -> str:
    """A recorded range for a person: ``openai 1.4.0 – 1.6.2, fixed in 1.6.3`` (the releases bisect saw fail)."""
    tested = entry.get("tested", {})
    # Ordered by release, not as stored: a fixture's JSON may hold them in any order.
    fails = sorted((v for v, verdict in tested.items() if verdict == "fails"), key=version_key)
    package = entry.get("package", "?")
    if not fails:
        if any(verdict == "changed" for verdict in tested.values()):
            return f"{package}: the recorded root cause on no release tested"
        return f"{package}: passes on every release tested"
    text = f"{package} {fails[0]}" + (f" – {fails[-1]}" if fails[-1] != fails[0] else "")
    return text + (f", fixed in {entry['fixed']}" if entry.get("fixed") else "")


def _wire_to_json(wire: bytes, cuts: tuple[int, ...]) -> dict[str, Any]:
    try:
        wire.decode("utf-8")
    except UnicodeDecodeError:
        return {"encoding": "base64", "data": base64.b64encode(wire).decode("ascii"), "cuts": list(cuts)}
    lines = [m.decode("utf-8") for m in _LINE.findall(wire)]
    return {"encoding": "utf-8", "lines": lines, "cuts": list(cuts)}


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(fixture: Fixture) -> str:
    # ensure_ascii=False keeps non-ASCII readable; json (not orjson) because
    # arguments may hold integers past 64 bits.  What a target observed may
    # hold lone UTF-16 halves (a library that never joined them): those
    # cannot be UTF-8, so they are written as \uXXXX escapes, which read back
    # as the same string.  Surrogates only ever occur inside JSON strings.
    text = json.dumps(fixture.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never half.

    Text is written as UTF-8 with LF line ends; bytes as they are.  The file gets the mode any new file of
    the process gets (0644 under umask 022): a fixture or a report is for the next user and CI to read.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _fresh(target)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _fresh(target: Path) -> tuple[int, str]:
    """A new file beside ``target`` to write it through, open for writing.

    Not tempfile.mkstemp: that makes every file 0600 whatever the umask, and os.replace keeps the mode.
    Opened with 0666, the kernel takes the umask off, as for any file the process creates.
    """
    while True:
        tmp = str(target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), tmp
        except FileExistsError:
            continue


#: The manifest of a folder of real captures (toolfuzz.corpus.agreement): its ``*.json`` files are recordings, not
#: fixtures, and a folder walk leaves them out.
CAPTURES_MANIFEST = "captures.toml"


def iter_fixture_paths(paths: list[str]) -> list[Path]:
    """Expand files and folders into fixture files (``*.json``, sorted, recursively; not a captures folder's)."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(sorted(q for q in p.rglob("*.json")
                                if q.is_file() and not (q.parent / CAPTURES_MANIFEST).is_file()))
        else:
            found.append(p)
    return found


def load(path: str | os.PathLike[str]) -> Fixture:
    source = str(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FIXTURE_BYTES + 1)
    except OSError as e:
        raise FixtureError(source, "", f"cannot read: {e.strerror or e}") from None
    if len(raw) > MAX_FIXTURE_BYTES:
        raise FixtureError(source, "", f"larger than {MAX_FIXTURE_BYTES} bytes; not a fixture")
    return loads(raw, source)


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise ValueError(f"{_short(text)} is not a finite number")
    return value


#: Python refuses to convert integers longer than this (sys.int_info.default_max_str_digits).
_MAX_DIGITS = 4300
_LONG_DIGITS = re.compile(r"\d{%d,}" % (_MAX_DIGITS + 1))


def _too_long_number(text: str) -> str:
    # json's own message for this names no place and advises a global setting; say where it is instead.
    m = _LONG_DIGITS.search(text)
    if m is None:
        return "a number is too long"
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return f"a number of {m.end() - m.start()} digits at line {line} column {column}; no fixture field needs one"


def loads(raw: bytes | str, source: str = "<fixture>") -> Fixture:
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FixtureError(source, "", f"not UTF-8 (byte {e.start})") from None
    try:
        doc = json.loads(raw, parse_constant=_reject_constant, parse_float=_finite)
    except RecursionError:
        raise FixtureError(source, "", "nested too deeply to be a fixture") from None
    except ValueError as e:
        if "integer string conversion" in str(e):
            raise FixtureError(source, "", _too_long_number(raw)) from None
        raise FixtureError(source, "", f"not JSON: {_short(str(e), 300)}") from None
    return _Reader(source).fixture(doc)


class _Reader:
    """Validates a parsed fixture document field by field; with ``prefix``, a part of one (a variant's case)."""

    def __init__(self, source: str, prefix: str = "") -> None:
        self.source = source
        self.prefix = prefix

    def fail(self, path: str, message: str) -> FixtureError:
        return FixtureError(self.source, _join(self.prefix, path) if path else self.prefix, message)

    def typed(self, value: Any, kind: type | tuple[type, ...], path: str, what: str) -> Any:
        # bool is an int to Python but never a count or an offset to us.
        if isinstance(value, bool) and kind is int:
            raise self.fail(path, f"must be {what}, not a boolean")
        if not isinstance(value, kind):
            raise self.fail(path, f"must be {what}, not {_json_type(value)}")
        return value

    def get(self, obj: dict[str, Any], key: str, kind: type | tuple[type, ...], path: str, what: str,
            default: Any = ...) -> Any:
        if key not in obj:
            if default is ...:
                raise self.fail(_join(path, key), "missing")
            return default
        return self.typed(obj[key], kind, _join(path, key), what)

    def fixture(self, doc: Any) -> Fixture:
        self.typed(doc, dict, "", "a JSON object")
        fmt = self.get(doc, "format", str, "", "a string")
        if fmt != FORMAT:
            raise self.fail("format", f"unsupported format {fmt[:80]!r}; this toolfuzz reads {FORMAT!r}")
        name = self.get(doc, "name", str, "", "a string")
        description = self.get(doc, "description", str, "", "a string", "")
        case = self.case(doc)
        observed = self.get(doc, "observed", dict, "", "an object", {})
        for key, value in observed.items():
            self.typed(value, dict, f"observed.{_key(key)}", "an object")
            if "output" in value:
                self.output(value["output"], f"observed.{_key(key)}.output")
        found = self.get(doc, "found", dict, "", "an object", {"by": "hand"})
        statement = self.get(doc, "statement", str, "", "a string", "")
        history = self.history(self.get(doc, "history", dict, "", "an object", {}))
        variants = self.variants(self.get(doc, "variants", list, "", "a list of variants", []))
        return Fixture(case=case, name=name, description=description, observed=observed, found=found,
                       statement=statement, history=history, variants=variants)

    def variants(self, items: list[Any]) -> tuple[Variant, ...]:
        out = []
        for i, item in enumerate(items):
            path = f"variants[{i}]"
            self.typed(item, dict, path, "an object")
            case = _Reader(self.source, _join(self.prefix, f"{path}.case")).case(
                self.get(item, "case", dict, path, "an object"))
            out.append(Variant(signature=self.get(item, "signature", str, path, "a string"), case=case,
                               name=self.get(item, "name", str, path, "a string", ""),
                               statement=self.get(item, "statement", str, path, "a string", "")))
        return tuple(out)

    def case(self, doc: dict[str, Any]) -> Case:
        """The case fields of ``doc``: a fixture's top level, or a variant's ``case``."""
        dialect = self.get(doc, "dialect", str, "", "a string", "openai-chat")
        if dialect not in DIALECTS + TEXT_DIALECTS:
            raise self.fail("dialect", f"must be one of {', '.join(DIALECTS + TEXT_DIALECTS)}, not "
                                       f"{_short(dialect)!r}")
        features = self.get(doc, "features", list, "", "a list of strings", [])
        for i, f in enumerate(features):
            self.typed(f, str, f"features[{i}]", "a string")
        tools = self.tools(self.get(doc, "tools", list, "", "a list of tools", []))
        limits = self.limits(doc.get("limits"))
        reads = self.wire(self.get(doc, "wire", dict, "", "an object"))
        expected = self.outcome(self.get(doc, "expected", dict, "", "an object"), "expected")
        if not any("indexed" in c for c in doc["expected"]["calls"]):
            expected = _unindexed_by_profile(expected, dialect, features)
        events = self.events(self.get(doc, "events", list, "", "a list of events")) if "events" in doc else None
        return Case(reads=reads, expected=expected, tools=tools, limits=limits,
                    dialect=dialect, features=tuple(features), events=events)

    def output(self, value: Any, path: str) -> None:
        """What a target wrote to stdout and stderr during the call (optional; files written before it was
        recorded have none)."""
        self.typed(value, dict, path, "an object")
        for key in value:
            if key not in ("stdout", "stderr"):
                raise self.fail(f"{path}.{_key(key)}", "unknown stream (stdout or stderr)")
            self.typed(value[key], str, f"{path}.{key}", "a string")

    def history(self, doc: dict[str, Any]) -> dict[str, Any]:
        for target, entry in doc.items():
            path = f"history.{_key(target)}"
            self.typed(entry, dict, path, "an object")
            self.get(entry, "package", str, path, "a string")
            for version, verdict in self.get(entry, "tested", dict, path, "an object").items():
                if verdict not in ("fails", "passes", "changed", "error"):
                    raise self.fail(f"{path}.tested.{_key(version)}", f"must be fails, passes, changed or error, not "
                                    f"{_short(str(verdict))!r}")
            for key in ("introduced", "fixed"):
                self.get(entry, key, (str, type(None)), path, "a release or null", None)
        return doc

    def events(self, items: list[Any]) -> tuple[SSEEvent, ...]:
        out = []
        for i, item in enumerate(items):
            path = f"events[{i}]"
            self.typed(item, dict, path, "an object")
            out.append(SSEEvent(data=self.get(item, "data", str, path, "a string"),
                                event=self.get(item, "event", str, path, "a string", "message"),
                                id=self.get(item, "id", str, path, "a string", "")))
        return tuple(out)

    def tools(self, items: list[Any]) -> tuple[Tool, ...]:
        out = []
        for i, item in enumerate(items):
            path = f"tools[{i}]"
            self.typed(item, dict, path, "an object")
            name = self.get(item, "name", str, path, "a string")
            params = self.get(item, "parameters", dict, path, "a JSON schema object", {"type": "object"})
            out.append(Tool(name=name, parameters=params))
        return tuple(out)

    def limits(self, value: Any) -> Limits:
        if value is None:
            return Limits()
        self.typed(value, dict, "limits", "an object")
        kwargs = {}
        for key in ("max_events", "max_argument_bytes", "max_stream_bytes"):
            if key in value:
                n = self.typed(value[key], int, f"limits.{key}", "a positive integer")
                if n < 1:
                    raise self.fail(f"limits.{key}", "must be a positive integer")
                kwargs[key] = n
        unknown = sorted(set(value) - {"max_events", "max_argument_bytes", "max_stream_bytes"})
        if unknown:
            raise self.fail(f"limits.{_key(unknown[0])}", "unknown bound")
        return Limits(**kwargs)

    def wire(self, wire: dict[str, Any]) -> tuple[bytes, ...]:
        encoding = self.get(wire, "encoding", str, "wire", "a string")
        if encoding == "utf-8":
            lines = self.get(wire, "lines", list, "wire", "a list of strings")
            if not all(type(line) is str for line in lines):  # one pass before naming the culprit
                i = next(i for i, line in enumerate(lines) if type(line) is not str)
                self.typed(lines[i], str, f"wire.lines[{i}]", "a string")
            try:
                data = "".join(lines).encode("utf-8")
            except UnicodeEncodeError as e:
                i = next(i for i, line in enumerate(lines) if _LONE_SURROGATE.search(line))
                raise self.fail(f"wire.lines[{i}]", "holds a lone surrogate; use base64") from e
        elif encoding == "base64":
            text = self.get(wire, "data", str, "wire", "a base64 string")
            try:
                data = base64.b64decode(text.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                raise self.fail("wire.data", "is not valid base64") from None
        else:
            raise self.fail("wire.encoding", f"must be 'utf-8' or 'base64', not {encoding[:40]!r}")
        cuts = self.get(wire, "cuts", list, "wire", "a list of byte offsets", [])
        previous = 0
        for i, cut in enumerate(cuts):
            # The field's name is built only for the cut at fault: a wire may have a million cuts.
            if type(cut) is not int:
                self.typed(cut, int, f"wire.cuts[{i}]", "a byte offset")
            if not previous <= cut <= len(data):
                raise self.fail(f"wire.cuts[{i}]", f"offset {_short(str(cut))} is outside {previous}..{len(data)} "
                                                   "(cuts ascend within the wire)")
            previous = cut
        bounds = [0, *cuts, len(data)]
        return tuple(data[a:b] for a, b in zip(bounds, bounds[1:]))

    def outcome(self, obj: dict[str, Any], path: str) -> Outcome:
        calls_json = self.get(obj, "calls", list, path, "a list of calls")
        calls = []
        for i, c in enumerate(calls_json):
            cp = _join(path, f"calls[{i}]")
            self.typed(c, dict, cp, "an object")
            status = self.get(c, "status", str, cp, "a string")
            if status not in STATUSES:
                raise self.fail(f"{cp}.status", f"must be one of {', '.join(STATUSES)}, not {status[:40]!r}")
            arguments = self.get(c, "arguments", str, cp, "a string")
            calls.append(Call(
                choice=self.get(c, "choice", int, cp, "an integer"),
                index=self.get(c, "index", int, cp, "an integer"),
                id=self.get(c, "id", (str, type(None)), cp, "a string or null"),
                name=self.get(c, "name", (str, type(None)), cp, "a string or null"),
                arguments=arguments,
                status=status,
                cuts=self.cuts(c, cp, len(arguments)),
                indexed=self.get(c, "indexed", bool, cp, "a boolean", True),
            ))
        error = None
        if obj.get("error") is not None:
            ep = _join(path, "error")
            e = self.get(obj, "error", dict, path, "an object or null")
            error = StreamError(code=self.get(e, "code", str, ep, "a string"),
                                message=self.get(e, "message", str, ep, "a string", ""))
        content = self.get(obj, "content", (str, type(None)), path, "a string or null", None)
        return Outcome(calls=tuple(calls), error=error, content=content)


    def cuts(self, call: dict[str, Any], path: str, length: int) -> tuple[int, ...]:
        """A call's ``cuts``: offsets strictly inside its arguments, ascending (absent: none recorded)."""
        cuts = self.get(call, "cuts", list, path, "a list of offsets", [])
        previous = 0
        for i, cut in enumerate(cuts):
            if type(cut) is not int:
                self.typed(cut, int, f"{path}.cuts[{i}]", "an offset")
            if not previous < cut < length:
                raise self.fail(f"{path}.cuts[{i}]", f"offset {_short(str(cut))} is outside {previous + 1}..{length - 1} "
                                                     "(cuts ascend strictly inside the arguments)")
            previous = cut
        return tuple(cuts)


#: The profiles under which no tool-call entry carries an index (toolfuzz.strategies.plan).
_UNINDEXED_PROFILES = frozenset({"index-missing", "index-null"})


def _unindexed_by_profile(expected: Outcome, dialect: str, features: list[str]) -> Outcome:
    """A fixture written before calls recorded ``indexed``: under these profiles the wire gave no call an
    index, and the features name the profiles the case was drawn with."""
    if dialect != "openai-chat" or not _UNINDEXED_PROFILES & set(features):
        return expected
    return dataclasses.replace(expected, calls=tuple(dataclasses.replace(c, indexed=False) for c in expected.calls))


def outcome_from_json(obj: Any, source: str = "<outcome>") -> Outcome:
    """Validate and build an outcome from its canonical JSON form."""
    reader = _Reader(source)
    reader.typed(obj, dict, "", "an object")
    return reader.outcome(obj, "")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _short(text: str, limit: int = 60) -> str:
    """The two ends of a long text: an error message quotes, it does not copy."""
    return text if len(text) <= limit else f"{text[:limit // 2]}...{text[-(limit // 2):]}"


def _key(key: str) -> str:
    """A key from the file as part of a field name: shortened, on one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in _short(key))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


_UNPRINTABLE = re.compile("[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def printable(text: str) -> str:
    """Text from a fixture, safe on a terminal and in XML 1.0: control characters and lone surrogates escaped.

    A fixture may hold any character; an escape sequence must not reach a
    terminal, and a control character would make an XML report unreadable.
    """
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1], text)
