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
  complete, and without one, the items as accumulated, none complete.

Whatever the SDK raises is reported as raised: that is what the user gets.
"""

from __future__ import annotations

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
    """ResponseStreamState fed each event; the completed response's calls, or the accumulated items."""
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=_OMIT, text_format=_OMIT)
    for data in events:
        if isinstance(data, dict) and data.get("error"):
            break
        state.handle_event(construct_type(type_=ResponseStreamEvent, value=data))
    # Neither is public: the first is what get_final_response() returns, the
    # second what the snapshot events show a user before the end.
    completed = state._completed_response
    if completed is not None:
        return calls_of(enumerate(completed.output or ()), True)
    return calls_of(sorted(state._output_items.items()), False)


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
