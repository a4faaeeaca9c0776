"""``toolfuzz assemble STREAM``: run the reference over captured SSE bytes and print the outcome."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, BinaryIO

from harness.commands.arguments import add_dialect_option, positive_int
from harness.errors import UsageError
from harness.model import Limits
from harness.toolfile import ToolFileError, load_tools
from targets.reference import ASSEMBLERS

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
    tools = ()
    if args.tools:
        try:
            tools = load_tools(args.tools)
        except ToolFileError as e:
            raise UsageError(str(e)) from None
    limits = Limits(max_events=args.max_events, max_argument_bytes=args.max_argument_bytes,
                    max_stream_bytes=args.max_bytes)
    try:
        assembler = ASSEMBLERS[args.dialect](tools, limits)
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
    json.dump(outcome.to_json(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 1 if outcome.error is not None else 0


def _pump(source: BinaryIO, assembler: Any, size: int) -> None:
    # Read by blocks, never the whole file: memory is bounded by the stream
    # bound and what the calls hold, not by the size of the capture.
    while assembler.outcome is None:
        block = source.read(size)
        if not block:
            assembler.close()
            return
        assembler.feed(block)
