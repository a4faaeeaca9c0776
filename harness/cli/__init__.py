"""The ``toolfuzz`` command line: one subcommand per module of this package.

Exit status: 0 success, 1 the job found something (a stream error, a
divergence), 2 a usage or input error, reported as one line on stderr.

Only the chosen subcommand's module is imported (each brings in Hypothesis,
the targets or the corpus as it needs them), so that ``toolfuzz assemble``
starts about as fast as a script; the full list is loaded for ``--help`` alone.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from toolfuzz import __version__
from toolfuzz.errors import UsageError

__all__ = ["main", "COMMANDS"]

#: Subcommands in the order ``toolfuzz --help`` lists them, each a module with ``register(subparsers)``.
COMMANDS = ("run", "replay", "corpus", "export", "generate", "profiles", "targets", "env", "bisect", "verify", "assemble",
            "show", "serve")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, one that knows that subcommand alone (the others are never imported)."""
    parser = argparse.ArgumentParser(
        prog="toolfuzz",
        description="Fuzz and compare assemblers of streamed LLM tool calls.",
    )
    parser.add_argument("--version", action="version", version=f"toolfuzz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"toolfuzz.cli.{name}").register(sub)
    return parser


def _chosen(argv: Sequence[str]) -> str | None:
    # Every option of the top-level parser comes before the subcommand and takes no value.
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_chosen(argv)).parse_args(argv)
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
