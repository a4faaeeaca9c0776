"""openai-python's own assembler of streamed chat completions, three ways a user meets it.

* ``openai-stream-state`` (events): ``ChatCompletionStreamState`` fed each
  chunk as the SDK would build it (``construct_type``), then
  ``get_final_completion()``, the documented way to read the result.
* ``openai-client`` (bytes): the real ``openai.OpenAI`` client, whose only
  fake part is an in-process transport (httpx2, or httpx before openai 3)
  serving the case's network reads as the response body, read by
  ``client.chat.completions.stream()`` and ``get_final_completion()``.  This
  covers the SDK's SSE decoder, its error-chunk handling and the stream
  helper's chunk filter.
* ``openai-client-done-events`` (bytes): the same stream, but the calls are
  the ones a user acting on ``tool_calls.function.arguments.done`` events
  would run, with the arguments the event carried.

The SDK has no notion of a complete call; what a user checks is the choice's
``finish_reason``.  A call counts as complete when its choice finished with
``tool_calls`` or ``stop`` (the check OpenAI's docs describe), and as
incomplete with no finish_reason or any other one.  Whatever the SDK raises
is reported as raised: that is what the user gets.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import openai
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from toolfuzz.vocabulary import COMPLETING as FINISHING
from toolfuzz.targets.adapters._support import mock_client, openai_http
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_state", "assemble_with_client", "handed_on_by_done_events"]

COMPLETING = FINISHING["openai-chat"]
_MESSAGES = [{"role": "user", "content": "toolfuzz"}]


def _calls(choices: Any) -> list[dict[str, Any]]:
    """The tool calls of a completion (or snapshot), one dict per call, in the SDK's order."""
    calls = []
    for choice in choices:
        complete = choice.finish_reason in COMPLETING
        for position, call in enumerate(choice.message.tool_calls or ()):
            calls.append(_call(choice.index, position, call, complete))
    return calls


def _call(choice: int, position: int, call: Any, complete: bool, arguments: str | None = None) -> dict[str, Any]:
    function = getattr(call, "function", None)
    # The SDK keeps the wire's ``index`` on each accumulated call (an extra
    # field); report that rather than the list position, so that a call the
    # SDK put at the wrong position is seen as such and not silently renumbered.
    index = getattr(call, "index", None)
    return {"choice": choice, "index": index if isinstance(index, int) else position,
            "id": getattr(call, "id", None), "name": getattr(function, "name", None),
            "arguments": (getattr(function, "arguments", None) or "") if arguments is None else arguments,
            "complete": complete}


# -- events: the accumulator alone ------------------------------------------

def assemble_with_state(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ChatCompletionStreamState fed each chunk, read with get_final_completion()."""
    state = ChatCompletionStreamState()
    for chunk in chunks:
        # The SDK's Stream raises APIError on a chunk with a truthy ``error``
        # before handing it on, so such a chunk never reaches the state; a user
        # who catches that error is left with the state as it was.
        if isinstance(chunk, dict) and chunk.get("error"):
            break
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=chunk))
    # Raises AssertionError when no chunk arrived at all: that is what a user gets.
    return _calls(state.get_final_completion().choices)


# -- bytes: the real client over an in-process transport ---------------------

def _client(reads: list[bytes]) -> openai.OpenAI:
    # An explicit key and base URL so that nothing comes from the environment;
    # no retries, so that a failure is seen once, as the user sees it.
    return openai.OpenAI(api_key="toolfuzz", base_url="http://toolfuzz.invalid/v1", max_retries=0,
                         http_client=mock_client(openai_http(), reads))


def _stream(client: openai.OpenAI) -> Any:
    """``chat.completions.stream``, which older releases keep under ``beta``."""
    completions = client.chat.completions
    return completions.stream if hasattr(completions, "stream") else client.beta.chat.completions.stream


def assemble_with_client(reads: list[bytes]) -> list[dict[str, Any]]:
    """openai.OpenAI().chat.completions.stream() over the case's reads, read with get_final_completion()."""
    with _client(reads) as client:
        with _stream(client)(model="x", messages=_MESSAGES) as stream:
            return _calls(stream.get_final_completion().choices)


def handed_on_by_done_events(reads: list[bytes]) -> list[dict[str, Any]]:
    """The calls a user acting on tool_calls.function.arguments.done events would run."""
    handed: dict[tuple[int, int], dict[str, Any]] = {}
    stream = None
    with _client(reads) as client:
        try:
            with _stream(client)(model="x", messages=_MESSAGES) as stream:
                choice = 0
                for event in stream:
                    if event.type == "chunk":
                        # A done event does not say which choice it belongs to;
                        # a user can only go by the chunk that fired it.
                        choice = event.chunk.choices[0].index if event.chunk.choices else choice
                    elif event.type == "tool_calls.function.arguments.done":
                        # The id is not on the event either: the user takes it
                        # from the snapshot at that moment, as done here.
                        snapshot = stream.current_completion_snapshot.choices
                        call = _find(snapshot, choice, event.index)
                        handed.setdefault((choice, event.index), {
                            **_call(choice, event.index, call, True, event.arguments),
                            "index": event.index, "name": event.name})
        except Exception:  # noqa: BLE001
            # Calls handed on before the stream failed were already acted on;
            # the failure itself is what openai-client reports.
            pass
    rest = []
    if stream is not None:
        try:
            choices = stream.current_completion_snapshot.choices
        except AssertionError:  # no chunk ever arrived
            choices = []
        for c in choices:
            for position, call in enumerate(c.message.tool_calls or ()):
                # Done events name a call by its position in the list.
                if (c.index, position) not in handed:
                    rest.append(_call(c.index, position, call, False))
    return list(handed.values()) + rest


def _find(choices: Any, choice: int, index: int) -> Any:
    for c in choices:
        if c.index == choice and c.message.tool_calls and 0 <= index < len(c.message.tool_calls):
            return c.message.tool_calls[index]
    return None


def _warm_up() -> None:
    """One request outside any case, so the SDK's once-per-process set-up happens here.

    The first request computes the platform headers, and ``platform.platform()``
    runs ``uname -p`` in a subprocess (once, then cached).  Inside a case that
    is refused as ``blocked_action``: true, but the stdlib's start-up, not the
    assembler, and it would hide everything else about the first case.
    """
    try:
        assemble_with_client([b"data: [DONE]\n\n"])
    except Exception:  # noqa: BLE001 - an empty stream may well raise; the set-up is done either way
        pass


def _quiet(fn: Callable[[Any], list[dict[str, Any]]]) -> Callable[[Any], list[dict[str, Any]]]:
    """Silence the SDK's pydantic serializer warnings (an integer id, say): they are noise on the run's
    stderr, and what the SDK does with such a value shows in the calls it returns."""
    @functools.wraps(fn)
    def run(arg: Any) -> list[dict[str, Any]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(arg)
    return run


_warm_up()
_VERSION = openai.__version__

TARGETS = (
    Target(name="openai-stream-state", fn=_quiet(assemble_with_state), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=_VERSION,
           summary="openai ChatCompletionStreamState + get_final_completion(); complete = finish_reason "
                   "tool_calls/stop"),
    Target(name="openai-client", fn=_quiet(assemble_with_client), level="bytes",
           reports=frozenset({"ids", "names", "completion"}), version=_VERSION, builds_on=("openai-stream-state", "openai-sse"),
           summary="openai.OpenAI over an in-process transport, chat.completions.stream() + "
                   "get_final_completion(); raises on error chunks"),
    Target(name="openai-client-done-events", fn=_quiet(handed_on_by_done_events), level="bytes",
           reports=frozenset({"ids", "names", "completion"}), version=_VERSION,
           builds_on=("openai-stream-state", "openai-sse"),
           summary="the calls openai's stream() hands on as tool_calls.function.arguments.done events"),
)
