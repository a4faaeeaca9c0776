"""The vocabulary of toolfuzz, defined once and imported everywhere.

* A **call** is one tool invocation as an assembler hands it on: which choice
  and tool-call index it belongs to, its id and name, the exact concatenated
  arguments string, and a status.
* An **outcome** is everything an assembler made of one stream: its calls,
  sorted by (choice, index), and the stream error, if the stream ended in one.
* A **case** is one stream to assemble: the tools the request offered, the
  exact bytes on the wire cut into network reads, the bounds in force, and
  the outcome that is correct for it, known by construction.
* A **fixture** (``toolfuzz.corpus.fixtures``) is a case written to a file, with what
  each target observed and how the case was found.

Strategies produce cases, targets produce outcomes, and the harness compares
them.  Strategies and targets import this module and never each other.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

import orjson

__all__ = [
    "COMPLETE",
    "INCOMPLETE",
    "INVALID_JSON",
    "UNKNOWN_TOOL",
    "SCHEMA_INVALID",
    "STATUSES",
    "EXECUTABLE",
    "ERROR_CODES",
    "DIALECTS",
    "TEXT_FORMATS",
    "TEXT_DIALECTS",
    "TEXT_SPECIALS",
    "TEXT_TOKENS",
    "text_format",
    "text_tokens",
    "input_text",
    "exact_json",
    "COMPLETING",
    "END_OF_STREAM",
    "Call",
    "StreamError",
    "Outcome",
    "Tool",
    "Limits",
    "Case",
    "SSEEvent",
    "OUTPUT_KEPT",
    "Output",
    "kept_output",
    "kept_from",
    "version_key",
]

#: The stream said the call is finished and its arguments are a JSON text
#: (and, when tools were given, name a tool and satisfy its schema).
COMPLETE = "complete"
#: The stream ended, failed or was cut before it said the call was finished.
INCOMPLETE = "incomplete"
#: Finished, but the concatenated arguments are not one JSON text.
INVALID_JSON = "invalid_json"
#: Finished, valid JSON, but the name is not one of the given tools.
UNKNOWN_TOOL = "unknown_tool"
#: Finished, valid JSON, known tool, but the arguments break its schema.
SCHEMA_INVALID = "schema_invalid"

STATUSES = (COMPLETE, INCOMPLETE, INVALID_JSON, UNKNOWN_TOOL, SCHEMA_INVALID)

#: Only calls with this status may ever reach a tool runner, and even then
#: only through an authorisation hook (``toolfuzz.targets.reference.gate``).
EXECUTABLE = COMPLETE

#: Stream error codes and what ends a stream with each of them.
ERROR_CODES = {
    "server_error": "the server sent an error chunk or an `error` event",
    "bad_chunk": "a data payload is not a well-formed chat.completion.chunk",
    "late_fragment": "a tool-call fragment arrived for a choice that had already finished",
    "too_many_events": "more SSE events than Limits.max_events",
    "arguments_too_large": "one call's arguments passed Limits.max_argument_bytes",
    "stream_too_large": "the stream passed Limits.max_stream_bytes",
}

#: Wire dialects: OpenAI chat completions chunks, OpenAI Responses events,
#: Anthropic Messages events (docs/dialects.md sets them side by side).
DIALECTS = ("openai-chat", "openai-responses", "anthropic")

#: The ways models write tool calls as text, which serving engines' parsers read back into calls
#: (docs/producers.md): the project's own renderings, one per format (``toolfuzz.strategies.markup``).
TEXT_FORMATS = ("hermes", "qwen25", "llama3", "mistral", "deepseek-v3", "deepseek-v31", "kimi-k2", "pythonic",
                "internlm", "cohere-command4", "apertus", "qwen3-coder", "glm47", "glm45", "deepseek-v32",
                "minimax-m2", "kimi-k3", "step3", "minimax-m3")
_DEEPSEEK = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
             "<｜tool▁sep｜>")
_GLM = ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>")
#: Each format's marks that its model's tokenizer holds as one special token: a batch boundary never falls
#: inside one, and an engine's stand-in tokenizer gives each its own id.
TEXT_SPECIALS: dict[str, tuple[str, ...]] = {
    "hermes": ("<tool_call>", "</tool_call>"), "qwen25": ("<tool_call>", "</tool_call>"),
    "llama3": ("<|python_tag|>",), "mistral": ("[TOOL_CALLS]",), "deepseek-v3": _DEEPSEEK, "deepseek-v31": _DEEPSEEK,
    "kimi-k2": ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
                "<|tool_call_end|>", "<|tool_call_argument_begin|>"),
    "pythonic": (), "internlm": ("<|action_start|>", "<|plugin|>", "<|action_end|>"),
    "cohere-command4": ("<|START_ACTION|>", "<|END_ACTION|>"), "apertus": ("<|tools_prefix|>", "<|tools_suffix|>"),
    # Qwen3's vocabulary holds <tool_call> and </tool_call> whole; its <function=...> and <parameter=...> not.
    "qwen3-coder": ("<tool_call>", "</tool_call>"),
    # GLM's vocabulary holds its six tool tags whole (sglang glm4_moe_detector.py, GlmSpecialTokenConfig).
    "glm47": _GLM, "glm45": _GLM,
    # Whether DeepSeek V3.2's vocabulary holds its DSML tags whole is not known here: both engines read them as
    # text, and none is taken for one token (a batch may end inside one, as it would inside several tokens).
    "deepseek-v32": (),
    # MiniMax's block marks, as vLLM's parser looks them up among the special tokens (parser/minimax_m2.py); its
    # <invoke> and <parameter> tags are text.
    "minimax-m2": ("<minimax:tool_call>", "</minimax:tool_call>"),
    # Kimi K3's three marks are tokens of its own; the channel and tag names between them are text (vLLM
    # reasoning/kimi_k3_reasoning_parser.py).
    "kimi-k3": ("<|open|>", "<|close|>", "<|sep|>"),
    # Step3's block marks, which vLLM's parser has the server keep as special tokens (skip_special_tokens off);
    # its steptml tags are text.
    "step3": ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_begin｜>", "<｜tool_call_end｜>",
              "<｜tool_sep｜>"),
    # MiniMax M3's marks are added tokens that decode as text (TEXT_TOKENS), none of them special.
    "minimax-m3": (),
}
#: Each format's marks that its model's tokenizer holds as one token that is not special: a batch boundary never
#: falls inside one, but it is text to the engine (its stand-in tokenizer lists no such mark among its specials,
#: which an engine drops from the text).
TEXT_TOKENS: dict[str, tuple[str, ...]] = {
    # The namespace that opens every M3 tag, an added token that is not special (vLLM parser/minimax_m3.py).
    "minimax-m3": ("]<]minimax[>[",),
}
#: The producer level's dialects: a model's generated text in one format, cut into token batches.  A case
#: of one holds the batches as its reads and the calls written as its expected outcome.
TEXT_DIALECTS = tuple(f"text:{f}" for f in TEXT_FORMATS)


def text_format(dialect: str) -> str | None:
    """The format of a producer dialect (``text:hermes`` is ``hermes``), None for a wire dialect."""
    head, colon, name = dialect.partition(":")
    return name if colon and head == "text" and name in TEXT_FORMATS else None


#: Every ASCII digit written as ``0``, so that a run of digits as long as the shortest integer past 64 bits (which
#: orjson reads as a float) is a run of that many zeros: a translate and a substring search, both in C, cost a
#: fifth of what a regular expression's scan did, and the scan had doubled the reference's time per chunk.
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
_LONG_DIGITS = b"0" * 19


def exact_json(payload: bytes) -> Any:
    """A JSON payload read fast (orjson), and exactly where it may hold an integer past 64 bits, which orjson
    turns into a float without a word (json keeps every digit).  NaN and Infinity are refused either way.
    Raises ValueError for what is not JSON."""
    if _LONG_DIGITS not in payload.translate(_DIGITS_AS_ZERO):
        return orjson.loads(payload)
    return json.loads(payload, parse_constant=_not_json)


def _not_json(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def input_text(value: dict[str, Any]) -> str:
    """The arguments text of a call whose input came whole, as an object (Anthropic's programmatic tool calls):
    compact JSON, and none for ``{}``, as for a call whose deltas were all empty (docs/contract.md 8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) if value else ""


_ORDINARY = re.compile(r"\s+|\w+|[^\w\s]+")


def text_tokens(text: str, specials: tuple[str, ...] | list[str] = ()) -> list[str]:
    """``text`` as a tokenizer would see its boundaries: each special mark one token, the rest cut into runs of
    white space, of word characters and of other characters, as a byte-pair tokenizer's pre-tokenizer splits
    text before it merges (docs/producers.md).  Not inside a run of punctuation: where a vocabulary splits one
    is its own, and every vocabulary holds ``":`` whole, which a parser may rightly take for one token.  The
    strategies cut batches here, and an engine's stand-in tokenizer gives each piece an id."""
    if not specials:
        return _ORDINARY.findall(text)
    marks = re.compile("|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)))
    out: list[str] = []
    at = 0
    for m in marks.finditer(text):
        out.extend(_ORDINARY.findall(text, at, m.start()))
        out.append(m.group())
        at = m.end()
    out.extend(_ORDINARY.findall(text, at))
    return out


#: The finish reasons after which a stopped call is complete, per dialect; strategies finish with the first.
COMPLETING: dict[str, tuple[str, ...]] = {
    "openai-chat": ("tool_calls", "stop"),
    "openai-responses": ("completed",),
    "anthropic": ("tool_use",),
}

#: The data of the event that ends a stream, in the dialects that have one
#: (the event dialects end with a typed event instead).
END_OF_STREAM: dict[str, str] = {"openai-chat": "[DONE]"}


@dataclass(frozen=True, slots=True)
class Call:
    choice: int
    index: int
    id: str | None
    name: str | None
    arguments: str
    status: str
    #: Where the stream cut ``arguments`` into fragments: offsets in code points, ascending, each strictly
    #: inside the text (a cut between the two UTF-16 halves of one character is inside no code point and is
    #: left out).  Known by construction; the ``partial`` level parses the prefixes ending there.  Not part
    #: of what the call is: two calls with the same text are the same call however it was cut.
    cuts: tuple[int, ...] = field(default=(), compare=False)
    #: Whether the wire gave the call its index.  False where it sent none (``index-missing``,
    #: ``index-null``) and ``index`` is only its position in the choice, which the contract numbers it by:
    #: a target is not held to a number the wire never sent (docs/contract.md, "How a target is judged").
    #: Not part of what the call is, like ``cuts``.
    indexed: bool = field(default=True, compare=False)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "choice": self.choice,
            "index": self.index,
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "status": self.status,
        }
        if self.cuts:
            doc["cuts"] = list(self.cuts)
        if not self.indexed:
            doc["indexed"] = False
        return doc


@dataclass(frozen=True, slots=True)
class StreamError:
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class Outcome:
    calls: tuple[Call, ...] = ()
    error: StreamError | None = None
    #: The text a producer case's model wrote around its calls, which the parser must hand on as content
    #: (None for the wire dialects, whose cases do not judge content).
    content: str | None = None

    def __post_init__(self) -> None:
        # Sorting here, once, is what makes two outcomes comparable with ==.
        # The sort is stable, so calls that share (choice, index) keep the
        # order in which they opened.
        ordered = tuple(sorted(self.calls, key=lambda c: (c.choice, c.index)))
        object.__setattr__(self, "calls", ordered)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "calls": [c.to_json() for c in self.calls],
            "error": None if self.error is None else self.error.to_json(),
        }
        if self.content is not None:
            doc["content"] = self.content
        return doc

    def executable(self) -> tuple[Call, ...]:
        return tuple(c for c in self.calls if c.status == EXECUTABLE)


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool as the request offered it: a name and a JSON schema for its arguments."""

    name: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "parameters": self.parameters}


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds fixed before a stream starts.  Past any of them the stream stops."""

    max_events: int = 1_000_000
    max_argument_bytes: int = 4 * 1024 * 1024
    max_stream_bytes: int = 256 * 1024 * 1024

    def __post_init__(self) -> None:
        for name in ("max_events", "max_argument_bytes", "max_stream_bytes"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"Limits.{name} must be a positive integer, not {value!r}")

    def to_json(self) -> dict[str, int]:
        return {
            "max_events": self.max_events,
            "max_argument_bytes": self.max_argument_bytes,
            "max_stream_bytes": self.max_stream_bytes,
        }


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched server-sent event, as the WHATWG algorithm defines it.

    ``event`` is the type (``"message"`` when the stream named none), ``data``
    the data lines joined with LF, ``id`` the last event id at dispatch (it
    persists across events; ``""`` when none was ever set).
    """

    data: str
    event: str = "message"
    id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "data": self.data, "id": self.id}


@dataclass(frozen=True, slots=True)
class Case:
    """One stream and the outcome that is correct for it.

    ``reads`` are the network reads in arrival order; their concatenation is
    the wire.  ``features`` name what the case exercises (call-shape profiles,
    framing and read-cut variants); the harness uses them in signatures.
    ``events`` are the SSE events the wire dispatches, when known by
    construction (``None``: not recorded; the harness then derives them).
    """

    reads: tuple[bytes, ...]
    expected: Outcome
    tools: tuple[Tool, ...] = ()
    limits: Limits = Limits()
    dialect: str = "openai-chat"
    features: tuple[str, ...] = ()
    events: tuple[SSEEvent, ...] | None = None
    #: The decisions the case was rendered from (toolfuzz.strategies.plans), when it was drawn by a
    #: Drawer: what the engine's reduction edits.  Not part of what the case is.
    plan: Any = field(default=None, compare=False, repr=False)
    #: The real capture a case was grown from (toolfuzz.strategies.captured), or "": where its findings came
    #: from.  Not part of what the case is.
    origin: str = field(default="", compare=False, repr=False)

    @property
    def wire(self) -> bytes:
        return b"".join(self.reads)

    @property
    def size(self) -> tuple[int, int, int]:
        """What "smaller" means for a case: fewer calls, then fewer reads, then fewer bytes."""
        return (len(self.expected.calls), len(self.reads), sum(map(len, self.reads)))

    @property
    def cuts(self) -> tuple[int, ...]:
        """Byte offsets into the wire where one read ends and the next begins."""
        offsets, at = [], 0
        for read in self.reads[:-1]:
            at += len(read)
            offsets.append(at)
        return tuple(offsets)


#: Of what a target writes to stdout or to stderr in one call, the first and the last this many bytes are kept.
OUTPUT_KEPT = 4096


def kept_output(data: bytes, total: int | None = None) -> str:
    """``data`` as text, its middle left out when it is longer than twice :data:`OUTPUT_KEPT` bytes.

    ``total`` is the length of the whole output when ``data`` holds only its two ends (a reader that would
    not read megabytes to keep eight kilobytes), so that what was left out is counted right.
    """
    total = len(data) if total is None else total
    if total <= 2 * OUTPUT_KEPT:
        return data.decode("utf-8", "replace")
    head, tail = data[:OUTPUT_KEPT].decode("utf-8", "replace"), data[-OUTPUT_KEPT:].decode("utf-8", "replace")
    return f"{head}\n[... {total - 2 * OUTPUT_KEPT} bytes left out ...]\n{tail}"


def kept_from(fd: int, start: int, end: int) -> str:
    """The bytes of the open file ``fd`` from offset ``start`` to ``end``, kept by :func:`kept_output` (only the
    two ends are read, and the file's offset is left where it was)."""
    size = end - start
    if size <= 0:
        return ""
    if size <= 2 * OUTPUT_KEPT:
        return kept_output(os.pread(fd, size, start))
    return kept_output(os.pread(fd, OUTPUT_KEPT, start) + os.pread(fd, OUTPUT_KEPT, end - OUTPUT_KEPT), size)


@dataclass(frozen=True, slots=True)
class Output:
    """What a target wrote to its standard output and standard error during one call, each kept by
    :func:`kept_output`: shown in its finding, never in the run's own output."""

    stdout: str = ""
    stderr: str = ""

    def __bool__(self) -> bool:
        return bool(self.stdout or self.stderr)

    def __add__(self, other: "Output") -> "Output":
        """Both, this one's first (a program's own output after what its in-process side wrote)."""
        if not other:
            return self
        if not self:
            return other
        return Output(*(kept_output((a + b).encode("utf-8", "replace")) if a and b else a or b
                        for a, b in ((self.stdout, other.stdout), (self.stderr, other.stderr))))

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in (("stdout", self.stdout), ("stderr", self.stderr)) if v}


def version_key(version: str) -> tuple[int, ...]:
    """A release's numbers, to order releases as they came (``0.9.1`` before ``0.10.0``)."""
    return tuple(int(n) for n in re.findall(r"\d+", version.split("+")[0]))
