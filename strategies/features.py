"""Every feature a drawn case can have, and who sends it: the evidence a finding's severity rests on.

A case's features name what it exercises: the call-shape profiles
(:mod:`toolfuzz.strategies.profiles`, whose evidence they carry), the SSE
framing, the read cuts, how the stream ends, what the calls look like.  For
each, :func:`shape_of` says whether it is inherent to any stream (a network
read may end at any byte; a model may write any value, several calls,
invalid JSON), which spec describes it, which providers document it and which
servers were seen sending it.  :mod:`toolfuzz.judge.grading` weighs that
against what a target promises to read (its ``Scope``): a finding on shapes
no server it reads is known to send is robustness, not a bug
(toolfuzz.severity).

A feature the table does not know is taken as inferred: it never grounds a
bug (tests/strategies/test_features.py holds the table to every feature the
strategies draw).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from toolfuzz.severity import ANY_SERVER, SERVERS, Evidence, Source
from toolfuzz.strategies.profiles import DIALECT_PROFILES

__all__ = ["Shape", "SHAPES", "DIALECT_SHAPES", "shape_of", "sent_by"]


@dataclass(frozen=True)
class Shape:
    """What is known of one feature: where it comes from, which servers send it, and where that is shown."""

    name: str
    source: Source
    cite: str
    seen_from: frozenset[str] = frozenset()
    documented_by: frozenset[str] = frozenset()
    #: The spec that describes it (``toolfuzz.severity.SPECS``), for targets that promise to follow one.
    spec: str = ""
    #: Where the outcome it fixes comes from (``Source.CHOICE`` where the wire leaves it open).
    truth: Source = Source.PROVIDER
    #: The dialects a case can have it in (empty: every one).
    dialects: tuple[str, ...] = ()

    def evidence(self, servers: Collection[str], specs: Collection[str] = ()) -> Evidence:
        """How well this shape is established for a reader of ``servers`` (``"*"``: any) that follows ``specs``."""
        if self.source is Source.INHERENT or (self.spec and self.spec in specs):
            return Evidence.DOCUMENTED
        mine = None if ANY_SERVER in servers else frozenset(servers)
        if self.documented_by and (mine is None or self.documented_by & mine):
            return Evidence.DOCUMENTED
        if self.seen_from and (mine is None or self.seen_from & mine):
            return Evidence.OBSERVED
        if self.documented_by or self.seen_from or self.spec:
            return Evidence.ELSEWHERE
        return Evidence.INFERRED


def _s(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _inherent(name: str, cite: str) -> Shape:
    return Shape(name, Source.INHERENT, cite)


def _sse(name: str, cite: str, seen: str = "", documented: str = "") -> Shape:
    return Shape(name, Source.SPEC, cite, _s(seen), _s(documented), spec="sse")


_CHAT = ("openai-chat",)
_TCP = "a network read ends wherever the socket had bytes (mistralai/client-python#16: Mistral's bursts of events " \
       "in one read, JSON split across reads)"
_MODEL = "a model may write any value the schema allows, and so any text a fragment boundary falls in"

#: Features that are not call-shape profiles.  The plain ones (``done``, ``lf``, ``single-read``) are in
#: every case's plainest form and never in a signature; they are here so that every drawn feature is.
_OTHERS = [
    # The plainest stream.
    _inherent("done", "OpenAI API reference: a stream ends with data: [DONE]"),
    _inherent("lf", "WHATWG SSE; every captured server frames lines with LF"),
    _inherent("single-read", "the whole body in one read"),
    _inherent("single-batch", "the model's whole text in one batch"),
    # Read cuts: TCP.
    *(_inherent(n, _TCP) for n in ("read-splits-utf8", "read-splits-crlf", "read-splits-field", "byte-reads",
                                  "burst-read")),
    # Fixtures written before the role chunk opened every plain stream list it as a feature of their own.
    Shape("role-chunk", Source.PROVIDER, "a role chunk opens each choice: what every captured server sends, and "
                                         "the plain stream since (openai-python .inline-snapshot 453df473e962*.bin)",
          _s("openai vllm sglang"), _s("openai azure"), dialects=_CHAT),
    # Framing (WHATWG SSE): what a decoder that follows the spec reads, and which servers send it.
    _sse("crlf", "WHATWG SSE 9.2.5 (CRLF, LF or CR end a line); Vertex AI's alt=sse and sse-starlette frame "
                 "with CRLF (nyroway/nyro PR #265; hey-api/hey-api#3054)"),
    _sse("cr", "WHATWG SSE 9.2.5: a lone CR ends a line"),
    _sse("bom", "WHATWG SSE 9.2.5: one leading U+FEFF is dropped"),
    _sse("no-space", "WHATWG SSE 9.2.6: the space after the colon is optional; a DeepSeek-R1 endpoint sends "
                     "data:{...} (karthink/gptel PR #592)", seen="deepseek"),
    _sse("comments", "WHATWG SSE 9.2.6: lines starting with a colon are comments; OpenRouter's docs "
                     "(': OPENROUTER PROCESSING'), llama.cpp's keep-alives (openai/openai-go#227; ollama/ollama PR #16443)",
         seen="openrouter llama.cpp", documented="openrouter"),
    _sse("sse-fields", "WHATWG SSE 9.2.6: id, retry and event fields; a gateway's id: on every event "
                       "(theopenco/llmgateway PR #2334)"),
    _sse("multiline-data", "WHATWG SSE 9.2.6: several data lines join with LF"),
    _sse("unterminated-event", "WHATWG SSE 9.2.6: an event without its blank line at the end is discarded; "
                               "llama-server b10603 ends [DONE] so (darshi1337/apogee PR #139)", seen="llama.cpp"),
    # How the stream ends.
    _inherent("no-done", "a connection may close after the finish, before [DONE] or message_stop"),
    Shape("after-done", Source.INFERRED, "bytes after [DONE] or the final event: no server seen sending them"),
    # A dropped connection raises the client's transport error before any assembler sees the end (an HTTP/1.1
    # chunked body cut short, an HTTP/2 reset): what a library is handed as a clean end before the finish is a
    # server that gave up and closed its body, which llama-server does when its streamed diff fails.
    *(Shape(n, Source.CAPTURE, "a body that ends cleanly before any finish: llama-server aborts mid-stream on "
                               "'Invalid diff' (ggml-org/llama.cpp#14060, #15713); a "
                               "dropped connection raises the transport's error instead", _s("llama.cpp"))
      for n in ("disconnect", "disconnect-mid-arguments")),
    Shape("error-chunk", Source.PROVIDER, "a data: {\"error\": ...} chunk mid-stream (openai-python raises "
                                          "APIError on it; OpenRouter's docs)",
          _s("openai openrouter vllm sglang llama.cpp"), _s("openai openrouter"), dialects=_CHAT),
    Shape("error-event", Source.CAPTURE, "an SSE error event in chat: OpenRouter and DashScope send one "
                                         "(octos-org/octos#13)", _s("openrouter")),
    Shape("failed", Source.PROVIDER, "response.failed (openai-python types/responses)", _s("openai"), _s("openai"),
          dialects=("openai-responses",)),
    _inherent("length", "any server cuts a call short at the token limit (finish_reason length, max_tokens)"),
    Shape("content-filter-finish", Source.PROVIDER, "finish_reason content_filter (OpenAI API reference)",
          _s("openai azure"), _s("openai azure"), dialects=_CHAT),
    # What the calls look like.
    _inherent("multi-call", "OpenAI's, Anthropic's docs: parallel tool calls; every server can return several"),
    Shape("multi-choice", Source.PROVIDER, "the n parameter (OpenAI API reference); openai-python's n=3 capture "
                                           "a0c4f0be184e...bin; Moonshot with n=2", _s("openai moonshot"),
          _s("openai azure"), dialects=_CHAT),
    Shape("multi-choice-chunk", Source.INFERRED, "one chunk carrying two choices: OpenAI's n=3 capture sends one "
                                                 "choice per chunk; no server seen doing otherwise",
          dialects=_CHAT),
    Shape("multi-entry-chunk", Source.PROVIDER, "several tool_calls entries in one chunk: the types allow an "
                                                "array; vLLM's pythonic parser sends them (its tests)",
          _s("vllm"), _s("openai azure"), dialects=_CHAT),
    Shape("same-call-entries", Source.INFERRED, "two tool_calls entries of one call in one chunk (its header, "
                                                "then its first arguments): the types allow it, no server is "
                                                "known to send it", dialects=_CHAT),
    # JSON allows white space around a value (RFC 8259, section 2), so a partial parser that follows it reads it.
    Shape("padded-json", Source.INFERRED, "white space before or after a call's arguments text: valid JSON, "
                                          "which no captured server sends", spec="json"),
    Shape("interleaved", Source.INFERRED, "fragments of two calls interleaved: the keying allows it, no capture "
                                          "shows it (only synthetic repros: continuedev/continue#13223, openai/openai-ruby PR #638)"),
    _inherent("empty-fragment", "an argument fragment of \"\": OpenAI's first fragment, llama.cpp's"),
    _inherent("one-char-fragments", "a token may be one character"),
    _inherent("fragment-after-backslash", "fragments split anywhere, inside an escape too (OpenAI's captures, "
                                          "Anthropic's quoted-tool-input fixture)"),
    _inherent("large-arguments", _MODEL),
    _inherent("invalid-json", "a model may write arguments that are not JSON (Anthropic's fine-grained "
                              "streaming docs: invalid or partial JSON)"),
    _inherent("schema-invalid", "a model may write arguments that break the tool's schema"),
    _inherent("unknown-tool", "a model may name a tool the request did not offer"),
    # The producer level: a model's text, batched as an engine batches tokens.
    *(_inherent(n, "a model may write text before its calls; an engine hands its parser the tokens of one "
                   "stream interval or speculative step at a time")
      for n in ("batched", "calls-in-one-batch", "content-before", "lookalike-strings", "one-token-batches",
                "stop-alone")),
    _inherent("streamed-then-whole", "an engine hands its parser a stream interval's or a speculative step's "
                                     "tokens at once, which may hold a whole call after one that streamed"),
    # A real server's own stream (toolfuzz corpus import, findings/captures/): whatever shapes it holds, that server
    # was seen sending them.  A recording of a server nobody named (a user's own) grounds nothing on its own, and
    # one the contract reads otherwise than its source's tests (a documented ambiguity) is read by a choice.
    *(Shape(f"captured-{server}", Source.CAPTURE, f"a stream {name} sent, recorded (findings/captures/)",
            frozenset({server})) for server, name in SERVERS.items()),
    Shape("captured", Source.INFERRED, "a recorded stream of a server nobody named"),
    Shape("captured-ambiguous", Source.CAPTURE, "a recorded stream the contract reads otherwise than its source's "
                                                "tests (findings/captures/README.md)", truth=Source.CHOICE),
    # The parsers' whole-text parse keeps only the text before the first call as content (sglang's
    # detect_and_parse: text[:idx]), and no chat template renders text after or between a message's calls.
    *(Shape(n, Source.INFERRED, "text after or between the calls: the templates render none, and sglang's "
                                "detect_and_parse keeps only the text before the first call")
      for n in ("content-after", "content-between")),
]

#: Shapes that mean another thing in another dialect, by (dialect, feature): they take the place of the
#: one in :data:`SHAPES` there.
_IN_DIALECT = [
    ("openai-responses", Shape("error-event", Source.PROVIDER, "the Responses API's error event (openai-python "
                                                               "types/responses/response_error_event.py)",
                               _s("openai"), _s("openai"))),
    ("anthropic", Shape("error-event", Source.PROVIDER, "Anthropic's streaming docs: error events such as "
                                                        "overloaded_error", _s("anthropic"), _s("anthropic"))),
    # Llama 3.1's JSON tool-calling template writes an assistant's call as the bare JSON object and drops the
    # message's content, and sglang's Llama32Detector documents no text before <|python_tag|> either.
    ("text:llama3", Shape("content-before", Source.INFERRED, "text before a Llama 3 call: its chat template "
                                                             "renders none beside a call")),
]

#: Every known feature's shape in every dialect; a profile's comes from its own evidence.
SHAPES: dict[str, Shape] = {s.name: s for s in _OTHERS}
DIALECT_SHAPES: dict[tuple[str, str], Shape] = {(d, s.name): s for d, s in _IN_DIALECT}
for _dialect, _profiles in DIALECT_PROFILES.items():
    for _p in _profiles.values():
        DIALECT_SHAPES[(_dialect, _p.name)] = SHAPES.setdefault(_p.name, Shape(
            _p.name, Source.CAPTURE if _p.seen_from else Source.INFERRED, _p.evidence, _p.seen_from,
            _p.documented_by, truth=_p.truth))


def shape_of(feature: str, dialect: str = "openai-chat") -> Shape:
    """What is known of ``feature`` in ``dialect``; one nobody has recorded is inferred."""
    return DIALECT_SHAPES.get((dialect, feature)) or SHAPES.get(feature) \
        or Shape(feature, Source.INFERRED, "not recorded (toolfuzz.strategies.features)")


def sent_by(servers: Collection[str], dialect: str = "openai-chat") -> frozenset[str]:
    """Every feature documented for, or seen from, one of ``servers``: what ``--server`` lets a run draw, so that
    a run can say "a well-behaved OpenAI server" and mean it."""
    unknown = set(servers) - set(SERVERS)
    if unknown:
        raise ValueError(f"unknown servers {sorted(unknown)}: one of {', '.join(sorted(SERVERS))}")
    shapes = (shape_of(name, dialect) for name in SHAPES)
    return frozenset(shape.name for shape in shapes if (not shape.dialects or dialect in shape.dialects)
                     and shape.evidence(servers) >= Evidence.OBSERVED)
