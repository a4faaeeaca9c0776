"""``toolfuzz assemble STREAM``: run the reference over captured SSE bytes and print the outcome."""

from __future__ import annotations

import argparse
import sys
from typing import Any, BinaryIO

from toolfuzz.cli.arguments import add_dialect_option, positive_int
from toolfuzz.errors import UsageError
from toolfuzz.vocabulary import Limits

# Only what registering the options needs is imported here; the reference (and
# the tool-file loader) are imported by run(), so `toolfuzz assemble --help` and
# argparse's own usage errors pay for argparse and the vocabulary alone.

READ_SIZE = 64 * 1024


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "assemble",
        help="assemble a captured stream with the reference and print the outcome",
        description="Read raw SSE bytes as captured (a file, or - for stdin), assemble them with the "
        "reference assembler, and print the canonical outcome as JSON. Exit 0 when the stream was "
        "read, 1 when it ended in a stream error, 2 for a usage error.",
    )
    p.add_argument("stream", metavar="STREAM", help="file of raw SSE bytes, or - for stdin")
    p.add_argument("--tools", metavar="TOOLS.json", help="tools to validate finished calls against "
                   "(OpenAI tools array, {name, parameters} list or MCP {name, inputSchema} list; a file or folder)")
    defaults = Limits()
    p.add_argument("--max-events", type=positive_int, default=defaults.max_events, metavar="N",
                   help=f"stop after N SSE events (default {defaults.max_events})")
    p.add_argument("--max-bytes", type=positive_int, default=defaults.max_stream_bytes, metavar="N",
                   help=f"stop after N bytes of stream (default {defaults.max_stream_bytes})")
    p.add_argument("--max-argument-bytes", type=positive_int, default=defaults.max_argument_bytes, metavar="N",
                   help=f"stop when one call's arguments pass N bytes (default {defaults.max_argument_bytes})")
    p.add_argument("--read-size", type=positive_int, default=READ_SIZE, metavar="N",
                   help=f"feed the stream in network reads of N bytes, to replay read cuts (default {READ_SIZE})")
    add_dialect_option(p, "the wire dialect of the captured stream")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from toolfuzz.targets.reference import ASSEMBLERS

    tools = ()
    if args.tools:
        from toolfuzz.schemas.load import ToolFileError, load_tools

        try:
            tools = load_tools(args.tools)
        except ToolFileError as e:
            raise UsageError(str(e)) from None
    limits = Limits(max_events=args.max_events, max_argument_bytes=args.max_argument_bytes,
                    max_stream_bytes=args.max_bytes)
    try:
        # events=False: the command prints the outcome alone, so the reference
        # need not build an event object per fragment (a third of the time on a large capture).
        assembler = ASSEMBLERS[args.dialect](tools, limits, events=False)
    except ValueError as e:
        raise UsageError(f"{args.tools}: {e}") from None
    if args.stream == "-":
        _pump(sys.stdin.buffer, assembler, args.read_size)
    else:
        try:
            with open(args.stream, "rb") as f:
                _pump(f, assembler, args.read_size)
        except OSError as e:
            raise UsageError(f"{args.stream}: cannot read: {e.strerror or e}") from None
    outcome = assembler.outcome
    assert outcome is not None
    sys.stdout.write(_pretty(outcome.to_json()) + "\n")
    return 1 if outcome.error is not None else 0


def _pretty(document: dict[str, Any]) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False)``, the same text, made by orjson.

    With an indent the standard library encodes in pure Python: tens of
    milliseconds for the thousands of calls of a large capture.  orjson writes
    the same text for these documents; what it refuses (a lone surrogate in a
    string, an integer beyond 64 bits) goes the standard way, as before.
    """
    import orjson

    try:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # orjson.JSONEncodeError
        import json

        return json.dumps(document, indent=2, ensure_ascii=False)


def _pump(source: BinaryIO, assembler: Any, size: int) -> None:
    # Read by blocks, never the whole file: memory is bounded by the stream
    # bound and what the calls hold, not by the size of the capture.
    while assembler.outcome is None:
        block = source.read(size)
        if not block:
            assembler.close()
            return
        assembler.feed(block)
