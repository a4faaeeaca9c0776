"""openai-python's assembler of streamed Responses, two ways a user meets it.

* ``openai-responses-state`` (events): ``ResponseStreamState`` fed each event
  as the SDK would build it (``construct_type`` over ``ResponseStreamEvent``),
  as ``ResponseStream`` feeds it.  An event whose data has a truthy ``error``
  member never reaches it (the SDK's ``Stream`` raises ``APIError`` first; a
  user who catches that is left with the state as it was).
* ``openai-responses-client`` (bytes): the real ``openai.OpenAI`` client over an
  in-process transport (httpx2, or httpx before openai 3) serving the case's network reads, read with
  ``client.responses.stream()`` and ``get_final_response()``.

What is reported for each ``function_call`` item:

* index: its position in ``response.output``, which is what ``output_index``
  numbers; before ``response.completed`` (state only) the ``output_index`` the
  item was added under.
* id: ``call_id`` (what a tool result must quote), not the item id ``fc_...``.
* arguments: the item's ``arguments`` string.  After ``response.completed``
  that is the server's final copy in the completed response (or, when it
  carries no output, the ``output_item.done`` items), not the deltas: the SDK
  only concatenates deltas into its running snapshot.
* complete: ``get_final_response()`` returns only after ``response.completed``
  and raises ``RuntimeError`` without it, so the client's calls are all
  complete or it raised.  The state reports the completed response's calls as
  complete, and without one, none complete: those of the response its
  ``response.incomplete`` or ``response.failed`` event hands on, else the items
  as its events last showed them.

Only the public surface is read: the events ``handle_event`` returns (what
``ResponseStream`` yields to a user: the items of ``output_item.added`` and
``.done``, the ``snapshot`` of each arguments delta, the ``response`` of the
lifecycle events) and ``get_final_response()``; never the state's own
attributes, which no public API hands on.

Whatever the SDK raises is reported as raised: that is what the user gets.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import openai
from openai._models import construct_type
from openai import _types
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

from toolfuzz.targets.adapters._support import mock_client, openai_http, quiet
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_state", "assemble_with_client", "calls_of"]


def _call(index: int, item: Any, complete: bool) -> dict[str, Any]:
    return {"index": index, "id": getattr(item, "call_id", None), "name": getattr(item, "name", None),
            "arguments": getattr(item, "arguments", None) or "", "complete": complete}


def calls_of(items: Any, complete: bool) -> list[dict[str, Any]]:
    """The function_call items of ``(position, item)`` pairs, one dict per call."""
    return [_call(position, item, complete) for position, item in items
            if getattr(item, "type", None) == "function_call"]


#: "Not given": openai 3 calls it ``omit``, the releases before ``NOT_GIVEN``.
_OMIT = getattr(_types, "omit", None) or _types.NOT_GIVEN


# -- events: the accumulator alone ------------------------------------------

def assemble_with_state(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ResponseStreamState fed each event; the calls of the response its events hand on last, or the items they
    showed."""
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=_OMIT, text_format=_OMIT)
    shown = _Shown()
    for data in events:
        if isinstance(data, dict) and data.get("error"):
            break
        for event in state.handle_event(construct_type(type_=ResponseStreamEvent, value=data)):
            shown.see(event)
    if shown.response is None:
        return calls_of(sorted(shown.items.items()), False)
    return calls_of(enumerate(shown.response.output or ()), shown.response_type == "response.completed")


class _Shown:
    """What the events a user is handed showed: the latest response of a lifecycle event that ends the stream,
    and each output item as it was last shown (its arguments as the latest delta's snapshot)."""

    _ENDS = ("response.completed", "response.incomplete", "response.failed")

    def __init__(self) -> None:
        self.items: dict[int, Any] = {}
        self.response: Any = None
        self.response_type = ""

    def see(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind in self._ENDS:
            # A completed response is the one get_final_response() returns: an end after it does not replace it.
            if self.response_type != "response.completed" or kind == "response.completed":
                self.response, self.response_type = event.response, kind
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = event.item
            self.items[event.output_index] = SimpleNamespace(
                type=getattr(item, "type", None), call_id=getattr(item, "call_id", None),
                name=getattr(item, "name", None), arguments=getattr(item, "arguments", None))
        elif kind == "response.function_call_arguments.delta" and event.output_index in self.items:
            self.items[event.output_index].arguments = event.snapshot


# -- bytes: the real client over an in-process transport ---------------------

def assemble_with_client(reads: list[bytes]) -> list[dict[str, Any]]:
    """openai.OpenAI().responses.stream() over the case's reads, read with get_final_response()."""
    # An explicit key and base URL so that nothing comes from the environment;
    # no retries, so that a failure is seen once, as the user sees it.
    with openai.OpenAI(api_key="toolfuzz", base_url="http://toolfuzz.invalid/v1", max_retries=0,
                       http_client=mock_client(openai_http(), reads)) as client:
        with client.responses.stream(model="x", input="toolfuzz") as stream:
            return calls_of(enumerate(stream.get_final_response().output or ()), True)


def _warm_up() -> None:
    """One request outside any case: the SDK's first request runs ``uname`` for its platform
    headers, which inside a case would be refused as ``blocked_action``."""
    try:
        assemble_with_client([b""])
    except Exception:  # noqa: BLE001 - an empty stream raises; the set-up is done either way
        pass


_warm_up()

_VERSION = openai.__version__
_CLAIMS = frozenset({"ids", "names", "completion"})

TARGETS = (
    Target(name="openai-responses-state", fn=quiet(assemble_with_state), level="events", reports=_CLAIMS,
           dialects=("openai-responses",), version=_VERSION,
           summary="openai ResponseStreamState; the response.completed output, else the accumulated items "
                   "as incomplete"),
    Target(name="openai-responses-client", fn=quiet(assemble_with_client), level="bytes", reports=_CLAIMS,
           dialects=("openai-responses",), version=_VERSION, builds_on=("openai-responses-state", "openai-sse"),
           summary="openai.OpenAI over an in-process transport, responses.stream() + get_final_response(); "
                   "raises without response.completed"),
)
