"""What a target is: anything that assembles a stream, and what it claims to report.

A target is a callable plus metadata.  At level ``events`` it is handed the
parsed ``chat.completion.chunk`` dicts in order; at level ``bytes`` the
network reads as ``bytes``.  It returns a list of dicts, one per call it
would hand on::

    {"index": 0, "id": "call_1", "name": "get_weather", "arguments": "{...}",
                           # index: None (or its position) for a call the wire sent without one
     "choice": 0,          # optional, default 0
     "complete": True,     # optional, default True: a call it would hand on
     "status": "..."}      # only for targets that claim validation

At level ``partial`` a target is a partial JSON parser, not an assembler:
it is called once per prefix of a call's argument text, ``fn(text: str)``,
and returns the value it would show for that prefix (dicts, lists, str,
int, float, bool, None); raising is that prefix's answer.

At level ``sse`` a target is an SSE decoder, not an assembler: it is handed
the network reads as ``bytes`` and returns the events it dispatches, in
order, one dict each::

    {"event": "message",   # the event type; None or "" mean "message"
     "data": "...",        # the data lines joined with LF
     "id": "7"}            # the last event id; None means "" (never set)

At level ``producer`` a target is a serving engine's tool parser, the other
side of the wire: it is handed a model's generated text in one format
(``Target.dialects`` names it, ``text:hermes``) cut into the batches a server
passes it, ``str`` each, with the request's tools (``takes_request``), and
returns what the server would send and what it parses from the whole text::

    {"content": "...",     # the streamed content deltas, joined
     "deltas": [{"index": 0, "id": "call_0", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"loc"}}, ...],
     "whole": {"content": "...", "calls": [{"name": "...", "arguments": "{...}"}]}}

``deltas`` are the ``delta.tool_calls`` entries of the chat chunks the
server would stream, in order; the harness assembles them with the
reference, as any client would.

Raising is an outcome too.  A target is judged only on what it claims
(:attr:`Target.reports`): a plain function on association, ids, names,
argument strings and completion; parsing and validation only when claimed.
A target that claims ``errors`` returns ``{"calls": [...], "stream_error": CODE}``
instead of the bare list, CODE being the code of the stream error it ended
with (``toolfuzz.vocabulary.ERROR_CODES``) or None.

An assembler is built for a request: the tools it offered and the bounds in
force.  A target with :attr:`Target.takes_request` is called as
``fn(arg, tools=..., limits=...)`` with the case's own, so that it validates
against the same schemas and stops at the same bounds the expected outcome
was built with.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from toolfuzz.severity import ANY_SERVER, SERVERS, SPECS

__all__ = ["LEVELS", "LEVEL", "Level", "Fed", "Answers", "PLAIN_CLAIMS", "PARTIAL_CLAIMS", "ALL_CLAIMS", "RELAXATIONS",
           "Target", "BadReturn", "Scope", "Limit",
           "ANY_SCOPE"]

class Fed(enum.Enum):
    """What a target of a level is handed for a case."""

    #: The parsed payloads of the case's events, in order (a chat stream's ``chat.completion.chunk`` dicts).
    CHUNKS = "chunks"
    #: The network reads, bytes in arrival order.
    READS = "reads"
    #: A model's text in the batches a server hands its parser.
    BATCHES = "batches"
    #: Each prefix of each finished call's argument text, one call each.
    PREFIXES = "prefixes"


class Answers(enum.Enum):
    """What a target of a level answers with, and so what it is judged on."""

    #: The calls it would hand on.
    CALLS = "calls"
    #: The SSE events it decodes.
    EVENTS = "events"
    #: The value it shows for each prefix.
    PREFIX_VALUES = "prefix values"
    #: The deltas a server would stream and the whole text's parse.
    STREAMED = "streamed"


@dataclass(frozen=True)
class Level:
    """One level a target can be judged at (docs/levels.md): the one place that says what each is."""

    name: str
    fed: Fed
    answers: Answers
    #: What a plain function is handed, in words (the pytest export's scaffold says it).
    takes: str
    #: Every kind a case shows is reported, each a rule of its own; elsewhere the gravest alone, since the
    #: others on the same case are that mistake seen from another side, as often as not.
    every_kind: bool = False


#: Every level, by name, in the order ``--level`` lists them.
LEVEL: dict[str, Level] = {level.name: level for level in (
    Level("events", Fed.CHUNKS, Answers.CALLS,
          "the parsed chunks (the dialect's event objects), a list of dicts in order"),
    Level("bytes", Fed.READS, Answers.CALLS, "the network reads, a list of bytes in arrival order"),
    Level("sse", Fed.READS, Answers.EVENTS,
          "the network reads, a list of bytes in arrival order, and returns the SSE events it decodes"),
    Level("partial", Fed.PREFIXES, Answers.PREFIX_VALUES,
          "one prefix of a finished call's argument text, a str, once per prefix", every_kind=True),
    # A producer's streamed calls, its content and its whole-text parse are three rules.
    Level("producer", Fed.BATCHES, Answers.STREAMED,
          "a model's text in the batches a server hands its parser, a list of str", every_kind=True),
)}
LEVELS = tuple(LEVEL)

#: What a plain function is judged on.
PLAIN_CLAIMS = frozenset({"ids", "names", "completion"})
#: What a plain function at level ``partial`` is judged on: ``exact-numbers`` means it tells ``1`` from
#: ``1.0`` and keeps the sign of ``-0.0`` (a program in a language with one number type cannot: its numbers
#: are judged as IEEE doubles).
PARTIAL_CLAIMS = frozenset({"exact-numbers"})
#: Everything a target can claim; ``validation`` means it returns a status per call,
#: ``errors`` the code of the stream error it ended with, ``values`` that it hands on each call's arguments
#: as a parsed value (written back as JSON for the judge), so it is judged on the value, not the spelling;
#: ``utf16-strings`` that its language holds strings as UTF-16 code units (JavaScript), so a partial parser's
#: string still arriving is judged as a prefix in those units.
ALL_CLAIMS = frozenset({"ids", "names", "completion", "validation", "errors", "exact-numbers", "values",
                        "utf16-strings"})
#: What a library can be asked for, by the options its users pass, that a rule of the contract forbids:
#: a target driven with such an option says so in ``Target.relaxations``, citing the library's documentation
#: in its module, and the judge does not flag what was asked for (docs/contract.md, "How a target is judged").
RELAXATIONS = {
    "partial-numbers": "shows a number still arriving as the digits so far (partial-json-parser's Allow.NUM)",
}


@dataclass(frozen=True)
class Limit:
    """A behaviour a library documents for some shapes (a TODO naming what it does not support, a warning it
    logs when it drops something, the draft of a spec it follows): what it does there is its stated behaviour,
    so a finding of one of ``kinds`` on a case with one of ``features`` is never a bug, only robustness."""

    features: frozenset[str]
    #: The divergence kinds it covers; empty: every kind.
    kinds: frozenset[str] = frozenset()
    #: Where the library says so: file and line, docstring, docs page.
    cite: str = ""

    def covers(self, kind: str, features: Iterable[str]) -> bool:
        return (not self.kinds or kind in self.kinds) and not self.features.isdisjoint(features)


@dataclass(frozen=True)
class Scope:
    """What a target promises to read, from its library's docs and types: the grounds its findings are graded on.

    * ``servers``: the servers whose streams it promises to read (``toolfuzz.severity.SERVERS``), or
      ``{"*"}`` for a library that says it reads any OpenAI-compatible server.  A finding on shapes seen only
      from other servers is robustness, not a bug (toolfuzz.severity).
    * ``specs``: the specs it promises to follow (``toolfuzz.severity.SPECS``: ``sse`` for an SSE decoder).
    * ``choices``: the most choices a request of it can ask for (1 for a library that never sends ``n``);
      a case with more is never run on it.  ``integer_ids``: whether its types admit an integer id.
    * ``promises``: rules of the project's own (``Source.CHOICE`` in toolfuzz.severity) that the library's
      docs promise too, so that breaking them is a bug: a partial parser that says it never shows a value
      that was not sent.
    * ``limits``: behaviours it documents for some shapes (:class:`Limit`), which its findings there are
      graded against: robustness at most.
    * ``surface``: the public API it is driven through; ``cite``: where the scope is written (docs, types).
    """

    servers: frozenset[str] = frozenset({ANY_SERVER})
    specs: frozenset[str] = frozenset()
    choices: int | None = None
    integer_ids: bool = True
    promises: frozenset[str] = frozenset()
    limits: tuple[Limit, ...] = ()
    surface: str = ""
    cite: str = ""

    def check(self) -> None:
        """ValueError naming what in this scope toolfuzz does not know."""
        servers = set(self.servers) - set(SERVERS) - {ANY_SERVER}
        if servers:
            raise ValueError(f"unknown servers in its scope {sorted(servers)} (toolfuzz profiles --servers lists them)")
        specs = set(self.specs) - set(SPECS)
        if specs:
            raise ValueError(f"unknown specs in its scope {sorted(specs)}: one of {sorted(SPECS)}")

    def admits(self, features: Iterable[str]) -> str | None:
        """Why a case with ``features`` is outside this scope, or None when it is inside."""
        features = set(features)
        if self.choices is not None and self.choices < 2 and features & {"multi-choice", "multi-choice-chunk"}:
            return f"more choices than the {self.choices} it can ask for"
        if not self.integer_ids and "integer-id" in features:
            return "integer ids, which its types do not admit"
        return None

    def limit_for(self, kind: str, features: Iterable[str]) -> Limit | None:
        """The documented behaviour that covers a finding of ``kind`` on a case with ``features``, if any."""
        features = frozenset(features)
        return next((limit for limit in self.limits if limit.covers(kind, features)), None)

    @property
    def any_server(self) -> bool:
        return ANY_SERVER in self.servers


#: A target that declares no scope: any server, every shape; graded on the evidence for the shapes alone.
ANY_SCOPE = Scope()


class BadReturn(Exception):
    """Raised by a target whose answer has no usable shape, to say why (``toolfuzz.targets.command``: the line its program
    wrote is not JSON, or too long); reported as ``bad_return`` with this message, not as ``raised``."""


@dataclass(frozen=True)
class Target:
    name: str
    fn: Callable[..., Any]
    level: str = "events"
    reports: frozenset[str] = PLAIN_CLAIMS
    dialects: tuple[str, ...] = ("openai-chat",)
    version: str = ""
    #: One line for ``toolfuzz targets``.
    summary: str = ""
    #: True for the harness's own deliberately broken targets.
    selftest: bool = False
    #: For self-test targets: the divergence kind the harness must find in them.
    mistake: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: Called with the case's tools and limits as keywords (the module docstring says why).
    takes_request: bool = False
    #: The built-in targets whose code this one runs inside (a client runs the SSE decoder under it and
    #: the stream state it feeds): what this one and any of them get wrong is one root cause, reported
    #: under the target below.  One name may be given as a string.
    builds_on: tuple[str, ...] = ()
    #: What it promises to read (:class:`Scope`): cases outside it are not run on it, and its findings are
    #: graded against it.
    scope: Scope = ANY_SCOPE
    #: What the library was asked for that a rule forbids (:data:`RELAXATIONS`): not flagged.
    relaxations: frozenset[str] = frozenset()

    def fn_for(self, dialect: str) -> Callable[..., Any]:
        """The function to run on cases of ``dialect``: ``extra["by_dialect"][dialect]`` if given, else :attr:`fn`."""
        return self.extra.get("by_dialect", {}).get(dialect, self.fn)

    def wrapped(self, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> "Target":
        """This target with ``wrap`` around every function it runs, :attr:`fn` and each dialect's own."""
        extra = dict(self.extra)
        if "by_dialect" in extra:
            extra["by_dialect"] = {d: wrap(f) for d, f in extra["by_dialect"].items()}
        return replace(self, fn=wrap(self.fn), extra=extra)

    def __post_init__(self) -> None:
        if isinstance(self.builds_on, str):
            object.__setattr__(self, "builds_on", (self.builds_on,) if self.builds_on else ())
        if self.level not in LEVELS:
            raise ValueError(f"target {self.name!r}: level must be one of {', '.join(LEVELS)}, not {self.level!r}")
        unknown = set(self.reports) - ALL_CLAIMS
        if unknown:
            raise ValueError(f"target {self.name!r}: unknown claims {sorted(unknown)}")
        try:
            self.scope.check()
        except ValueError as e:
            raise ValueError(f"target {self.name!r}: {e}") from None
        unknown = set(self.relaxations) - RELAXATIONS.keys()
        if unknown:
            raise ValueError(f"target {self.name!r}: unknown relaxations {sorted(unknown)}")
