"""What the library adapters share: chunks as the openai SDK builds them, an in-process
SSE server for a real client, one event loop, and quiet warnings.

Only the adapters import this, and only after their own library: it imports
the openai SDK (every library adapted here streams through it), and serves
a client of whichever HTTP library the caller passes: the one the installed
SDK is built on (httpx2 from openai 3, httpx before), or httpx for a library
that builds its own client.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import warnings
from typing import Any, AsyncIterator, Callable, Iterable, Iterator

from openai import _base_client
from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk

from toolfuzz.vocabulary import COMPLETING as FINISHING

__all__ = ["COMPLETING", "sdk_chunk", "sdk_chunks", "until_error", "StreamFailed", "openai_http", "http_of", "mock_client", "run", "quiet", "text_of"]

#: The finish reasons after which a choice's calls are finished (docs/contract.md section 4).
COMPLETING = FINISHING["openai-chat"]


def sdk_chunk(chunk: dict[str, Any]) -> ChatCompletionChunk:
    """A chunk dict as the openai SDK hands it to a library: loosely constructed, never validated."""
    return construct_type(type_=ChatCompletionChunk, value=chunk)


class StreamFailed(Exception):
    """What the openai SDK raises (as ``APIError``) on a chunk with a truthy ``error``."""

    #: Where the SDK raises it, as the harness names crash states (toolfuzz.judge.crash_state.crash_state): so that
    #: a library handed the SDK's raise shows it as the SDK's one root cause (openai-client's), not its own.
    #: As text, which the harness parses: repro scripts copy this module where toolfuzz is not installed.
    crash_state = "APIError at openai._streaming.Stream.__stream__ < openai._streaming.Stream.__iter__"


def until_error(chunks: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The chunks a library reading the openai SDK's stream sees: the SDK raises on a chunk with a
    truthy ``error`` (an ``error`` event carries one too) before handing it on, and the library,
    iterating the stream, passes the exception to its caller; nothing is assembled."""
    for chunk in chunks:
        if chunk.get("error"):
            raise StreamFailed(f"the server sent an error: {str(chunk['error'])[:200]}")
        yield chunk


def sdk_chunks(chunks: Iterable[dict[str, Any]]) -> Iterator[ChatCompletionChunk]:
    """:func:`until_error`, each chunk built as the SDK builds it."""
    return map(sdk_chunk, until_error(chunks))


def openai_http() -> Any:
    """The HTTP library the installed openai SDK is built on: httpx2 from openai 3, httpx before."""
    return http_of(_base_client)


def http_of(base_client: Any) -> Any:
    """The HTTP library an SDK generated as openai's is (its ``_base_client`` module) is built on: httpx2 or httpx."""
    return getattr(base_client, "httpx2", None) or base_client.httpx


def mock_client(http: Any, reads: list[bytes], asynchronous: bool = False) -> Any:
    """An ``http.Client`` (or ``AsyncClient``) whose every request is answered with the case's reads
    as an SSE body, in exactly those reads.  ``http`` is the httpx2 or httpx module
    (:func:`openai_http` for a client the openai SDK is given)."""
    if asynchronous:
        class Body(http.AsyncByteStream):
            async def __aiter__(self) -> AsyncIterator[bytes]:
                for read in reads:
                    yield read
    else:
        class Body(http.SyncByteStream):  # type: ignore[no-redef]
            def __iter__(self) -> Iterator[bytes]:
                yield from reads

    def serve(request: Any) -> Any:
        return http.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    transport = http.MockTransport(serve)
    return http.AsyncClient(transport=transport) if asynchronous else http.Client(transport=transport)


def text_of(raw: str, value: Any) -> str:
    """The arguments a library that keeps only a parsed ``value`` hands on, as text to compare.

    The stream's own ``raw`` text when ``value`` is exactly what it says (blank
    text is ``{}``, as in the contract), so that a value is never reported as
    rewritten merely for being a value; otherwise the value as JSON, which
    shows what the library did to the text (repaired it, dropped it to ``{}``).
    """
    try:
        same = value == ({} if not raw.strip() else json.loads(raw))
    except (ValueError, RecursionError):
        same = False
    return raw if same else json.dumps(value, ensure_ascii=False)


_loop: asyncio.AbstractEventLoop | None = None


def run(coroutine: Any) -> Any:
    """Run a coroutine on one loop made once, outside any case: creating a loop opens a
    self-pipe socket pair, which inside a case the harness would refuse."""
    global _loop
    if _loop is None:
        _loop = asyncio.new_event_loop()
    return _loop.run_until_complete(coroutine)


def quiet(fn: Callable[[Any], list[dict[str, Any]]]) -> Callable[[Any], list[dict[str, Any]]]:
    """Silence library warnings and log records while a target runs: what the library does with
    the stream shows in the calls it returns, and a run's stderr is for the harness."""
    @functools.wraps(fn)
    def target(arg: Any) -> list[dict[str, Any]]:
        previous = logging.root.manager.disable
        logging.disable(logging.CRITICAL)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fn(arg)
        finally:
            logging.disable(previous)
    return target


run(asyncio.sleep(0))
