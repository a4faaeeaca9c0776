"""anthropic-sdk-python's assembler of streamed Messages, two ways a user meets it.

* ``anthropic-accumulator`` (events): ``accumulate_event`` fed each event as
  the SDK would build it (``construct_type`` over ``RawMessageStreamEvent``),
  driven as ``MessageStream`` drives it: events before ``message_start`` pass
  it by, a ``ping`` never reaches it, and an ``error`` event stops the stream
  (the SDK raises there; a user who catches that is left with the snapshot as
  it was).
* ``anthropic-client`` (bytes): the real ``anthropic.Anthropic`` client over an
  in-process transport (httpx2, or httpx before it) serving the case's network reads as a
  ``text/event-stream`` body, read with ``messages.stream()`` and
  ``get_final_message()``.  This adds the SDK's SSE decoder, which dispatches
  on the ``event:`` name (data-only events are dropped, ``error`` raises).

What is reported for each ``tool_use`` block of the final message:

* index: the block's position in ``message.content``.  ``content_block_start``
  appends and ignores the event's ``index``, while deltas look blocks up by it,
  so a stream whose indices are not the positions shows here.
* arguments: the SDK does not keep the argument text where a user can reach
  it.  It re-parses the whole buffer with ``jiter`` in partial mode on every
  ``input_json_delta`` and exposes only the parsed ``ToolUseBlock.input``.
  That value is reported written back as JSON (``json.dumps``), and the
  target claims ``values``: equal values are not a divergence (the SDK
  promises a value, not a spelling), a value cut short by partial parsing is
  ``arguments_differ``, and a buffer jiter rejects as ``raised`` (the SDK
  raises ``ValueError`` mid-stream).  Empty arguments are ``{}`` here, never
  the empty string.
* complete: the message's ``stop_reason`` is ``tool_use``, the check
  Anthropic's tool-use docs give before running tools.  A disconnected
  stream leaves ``stop_reason`` unset.

No validation is claimed: the SDK does not check inputs against the tools'
schemas.  Whatever the SDK raises is reported as raised.
"""

from __future__ import annotations

import functools
import inspect
import json
import warnings
from typing import Any, Callable

import anthropic
from anthropic._models import construct_type
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import RawMessageStreamEvent

from toolfuzz.vocabulary import COMPLETING as FINISHING
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_accumulator", "assemble_with_client", "calls_of", "client_for", "quiet"]

COMPLETING = FINISHING["anthropic"]
_MESSAGES = [{"role": "user", "content": "toolfuzz"}]
# SDKs up to 1.x keep each block's JSON buffer on the block and take no json_bufs.
_TAKES_BUFFERS = "json_bufs" in inspect.signature(accumulate_event).parameters


def arguments_of(value: Any) -> str:
    """The parsed input written back as JSON; ensure_ascii off so that text compares as text."""
    return json.dumps(value, ensure_ascii=False)


def calls_of(message: Any) -> list[dict[str, Any]]:
    """The tool_use blocks of a message (or snapshot), one dict per block."""
    if message is None:
        return []
    complete = getattr(message, "stop_reason", None) in COMPLETING
    return [{"index": position, "id": block.id, "name": block.name,
             "arguments": arguments_of(block.input), "complete": complete}
            for position, block in enumerate(message.content or ()) if getattr(block, "type", None) == "tool_use"]


# -- events: the accumulator alone ------------------------------------------

def assemble_with_accumulator(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """accumulate_event over the events, as MessageStream calls it; the calls of the last snapshot."""
    snapshot = None
    buffers: dict[int, bytes] = {}
    for data in events:
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "ping":
            continue
        if kind == "error":
            break
        if snapshot is None and kind != "message_start":
            continue
        event = construct_type(type_=RawMessageStreamEvent, value=data)
        if _TAKES_BUFFERS:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        else:  # pragma: no cover - old SDKs only
            snapshot = accumulate_event(event=event, current_snapshot=snapshot)
    return calls_of(snapshot)


# -- bytes: the real client over an in-process transport ---------------------

def client_for(reads: list[bytes]) -> anthropic.Anthropic:
    """A real client whose every request is answered with the case's reads as an SSE body."""
    # The HTTP library this release is built on: httpx2 in the newer ones, httpx before.
    http = getattr(anthropic._base_client, "httpx2", None) or anthropic._base_client.httpx

    def serve(request: Any) -> Any:
        # An iterator body is streamed item by item: the client gets exactly the case's reads.
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=iter(reads))

    # An explicit key and base URL so that nothing comes from the environment;
    # no retries, so that a failure is seen once, as the user sees it.
    return anthropic.Anthropic(api_key="toolfuzz", base_url="http://toolfuzz.invalid", max_retries=0,
                               http_client=http.Client(transport=http.MockTransport(serve)))


def assemble_with_client(reads: list[bytes]) -> list[dict[str, Any]]:
    """anthropic.Anthropic().messages.stream() over the case's reads, read with get_final_message()."""
    with client_for(reads) as client:
        with client.messages.stream(model="x", max_tokens=1024, messages=_MESSAGES) as stream:
            return calls_of(stream.get_final_message())


def _warm_up() -> None:
    """One request outside any case: the first computes platform headers with a ``uname``
    subprocess, which inside a case would be refused as ``blocked_action``."""
    try:
        assemble_with_client([b""])
    except Exception:  # noqa: BLE001 - an empty stream raises (no message_start); the set-up is done
        pass


def quiet(fn: Callable[[Any], list[dict[str, Any]]]) -> Callable[[Any], list[dict[str, Any]]]:
    """Silence pydantic serializer warnings: noise on the run's stderr, and what the SDK does
    with such a value shows in the calls it returns."""
    @functools.wraps(fn)
    def run(arg: Any) -> list[dict[str, Any]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(arg)
    return run


_warm_up()
_VERSION = anthropic.__version__
_CLAIMS = frozenset({"ids", "names", "completion", "values"})

TARGETS = (
    Target(name="anthropic-accumulator", fn=quiet(assemble_with_accumulator), level="events", reports=_CLAIMS,
           dialects=("anthropic",), version=_VERSION,
           summary="anthropic accumulate_event as MessageStream drives it; input re-parsed (jiter, partial) "
                   "on every delta; complete = stop_reason tool_use"),
    Target(name="anthropic-client", fn=quiet(assemble_with_client), level="bytes", reports=_CLAIMS,
           dialects=("anthropic",), version=_VERSION, builds_on=("anthropic-accumulator", "anthropic-sse"),
           summary="anthropic.Anthropic over an in-process transport, messages.stream() + get_final_message(); "
                   "raises on error events"),
)
