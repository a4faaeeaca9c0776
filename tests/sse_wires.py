"""Hand-written SSE wires with the events the spec makes of them, for the sse-level adapter tests.

Each wire is a tuple of network reads and the events a conforming decoder
dispatches, written out by hand from the WHATWG rules (not computed by the
reference decoder), so an adapter test checks a library against the spec
itself.  :func:`judge` runs a target on a wire through the harness, as a run
would: observe under the audit hook, then compare.
"""

from __future__ import annotations


import pytest

from toolfuzz.judge.compare import compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.corpus.fixtures import load
from toolfuzz.vocabulary import Case, Outcome, SSEEvent
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.base import Target
from tests.paths import ROOT

SEED = load(ROOT / "findings" / "seed" / "two-calls-interleaved.json").case


def _e(data: str, event: str = "message", id: str = "") -> SSEEvent:
    return SSEEvent(data, event, id)


_CUT = "data: é😀\n\n".encode()

#: name -> (reads, events a conforming decoder dispatches)
WIRES: dict[str, tuple[tuple[bytes, ...], tuple[SSEEvent, ...]]] = {
    # The seed's two interleaved calls: LF framing, one read; its events are the
    # reference decoder's (it is held to construction in test_harness_compare_sse).
    "seed-two-calls": (SEED.reads, expected_events(SEED)),
    "crlf": ((b'data: {"a": 1}\r\n\r\ndata: [DONE]\r\n\r\n',), (_e('{"a": 1}'), _e("[DONE]"))),
    "cr-only": ((b'data: {"a": 1}\r\rdata: [DONE]\r\r',), (_e('{"a": 1}'), _e("[DONE]"))),
    "crlf-split-between-cr-and-lf": ((b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n"), (_e("a"), _e("b"))),
    "bom": ((b"\xef\xbb\xbfdata: a\n\ndata: b\n\n",), (_e("a"), _e("b"))),
    # Cut after "data: " and the first byte of é: the character must come out whole.
    "split-mid-utf8": ((_CUT[:7], _CUT[7:10], _CUT[10:]), (_e("é😀"),)),
    "no-space-after-colon": ((b"data:a\n\ndata:  b\n\n",), (_e("a"), _e(" b"))),
    "comment-line": ((b": ping\n\ndata: a\n: keep-alive\ndata: b\n\n",), (_e("a\nb"),)),
    "multi-line-data": ((b'data: {"a":\ndata: 1}\ndata:\n\n',), (_e('{"a":\n1}\n'),)),
    "event-type": ((b"event: error\ndata: x\n\ndata: y\n\n",), (_e("x", "error"), _e("y"))),
    "id-persists": ((b"id: 7\ndata: a\n\ndata: b\n\n",), (_e("a", id="7"), _e("b", id="7"))),
    "data-less-block-after-id": ((b"id: 7\ndata: a\n\n: ping\n\ndata: b\n\n",), (_e("a", id="7"), _e("b", id="7"))),
    "unterminated-last-event": ((b"data: a\n\ndata: b\n",), (_e("a"),)),
    "blank-line-ended-by-lone-cr": ((b"data: a\r\n\r",), (_e("a"),)),
    "data-less-event-block": ((b"event: ping\n\ndata: a\n\n",), (_e("a"),)),
    "retry-only-block": ((b"retry: 3000\n\ndata: a\n\n",), (_e("a"),)),
    # A disconnect inside a character: the unterminated line is discarded, bytes and all.
    "disconnect-mid-utf8": ((b"data: a\n\n", b"data: \xc3"), (_e("a"),)),
}

#: httpx-sse's field logic, which openai's and anthropic's decoders copied: a blank line dispatches
#: whenever an event type, a last event id or a retry is set, data or not.
DISPATCHES_WITHOUT_DATA = {
    "data-less-block-after-id": "phantom_event",
    "data-less-event-block": "phantom_event",
    "retry-only-block": "phantom_event",
}


def judge(target: Target, name: str) -> list[str]:
    """The divergence kinds of ``target`` on the wire ``name``, as the harness finds them."""
    reads, events = WIRES[name]
    case = Case(reads=reads, expected=Outcome(), events=events)
    return [d.kind for d in compare(case.expected, observe(target, case), target, expected_events(case))]


def decoded(target: Target, name: str) -> list[dict]:
    """What the library itself returns for the wire (before the harness's normalisation)."""
    return target.fn(list(WIRES[name][0]))


def spec_tests(target: Target, diverges: dict[str, str]):
    """The two tests every sse adapter module runs: agreement on every wire but ``diverges``, and on those
    exactly the kind given (where the library parts from the spec, the test asserts the divergence)."""

    @pytest.mark.parametrize("name", [w for w in WIRES if w not in diverges])
    def test_follows_the_spec(name):
        assert judge(target, name) == []

    @pytest.mark.parametrize("name", sorted(diverges))
    def test_diverges_from_the_spec(name):
        assert judge(target, name) == [diverges[name]]

    return test_follows_the_spec, test_diverges_from_the_spec
