"""The ``toolfuzz`` command line: one subcommand per module in :mod:`harness.commands`.

Exit status: 0 success, 1 the job found something (a stream error, a
divergence), 2 a usage or input error, reported as one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from harness import __version__
from harness.commands import COMMANDS
from harness.errors import UsageError

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolfuzz",
        description="Fuzz and compare assemblers of streamed LLM tool calls.",
    )
    parser.add_argument("--version", action="version", version=f"toolfuzz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UsageError as e:
        print(f"toolfuzz {args.command}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `toolfuzz show x | head` is not an error worth a traceback.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"toolfuzz {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
