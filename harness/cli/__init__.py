"""The ``toolfuzz`` command line: one subcommand per module of this package.

Exit status (:class:`toolfuzz.errors.Exit`), whatever becomes of the output:
0 nothing found, 1 the job found something (a divergence, a stream error),
2 a usage or input error, reported as one line on stderr, 3 a bug in
toolfuzz (one line on stderr says where its traceback was written), 130
interrupted (Ctrl-C, SIGTERM, its output closed) with nothing found.  A
reader that goes away (``| head``) is not an error: the command's own
status stands (:mod:`toolfuzz.cli.streams`).

Only the chosen subcommand's module is imported (each brings in Hypothesis,
the targets or the corpus as it needs them), so that ``toolfuzz assemble``
starts about as fast as a script; the full list is loaded for ``--help`` alone.

The command runs under one hash seed, toolfuzz's or the user's (:mod:`toolfuzz.hash_seed`): when none is set it
runs itself again, at once, with ``PYTHONHASHSEED`` set.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
import time
import traceback
from pathlib import Path
from typing import Sequence

from toolfuzz import __version__
from toolfuzz.cli.streams import guarded
from toolfuzz.errors import Exit, UsageError
from toolfuzz.hash_seed import pinned
from toolfuzz.state import DEFAULT, kept

__all__ = ["main", "COMMANDS"]

#: Subcommands in the order ``toolfuzz --help`` lists them, each a module with ``register(subparsers)``.
COMMANDS = ("run", "replay", "corpus", "export", "generate", "profiles", "targets", "env", "bisect", "verify", "assemble",
            "show", "serve")


#: The exit statuses, as ``toolfuzz --help`` ends with them (docs/commands.md says the same).
EPILOG = """exit status, whatever becomes of the output:
  0    nothing found
  1    something found: divergences (run, replay), a stale page (corpus matrix --check)...
  2    a usage or input error, said in one line
  3    a bug in toolfuzz: one line says where its traceback was written
  130  interrupted (Ctrl-C, SIGTERM, output closed) before anything was found"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, one that knows that subcommand alone (the others are never imported)."""
    parser = argparse.ArgumentParser(
        prog="toolfuzz",
        description="Fuzz and compare assemblers of streamed LLM tool calls.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
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
    if argv is None:
        _under_the_hash_seed()
    argv = list(sys.argv[1:] if argv is None else argv)
    with guarded():
        args = build_parser(_chosen(argv)).parse_args(argv)
        try:
            return int(args.run(args))
        except UsageError as e:
            print(f"toolfuzz {args.command}: {e}", file=sys.stderr)
            return Exit.USAGE
        except KeyboardInterrupt:
            print(f"toolfuzz {args.command}: interrupted", file=sys.stderr)
            return Exit.INTERRUPTED
        except Exception as e:  # noqa: BLE001 - a bug of ours: said in one line, its traceback kept
            where = _keep_traceback(Path(getattr(args, "state", None) or DEFAULT), args.command, argv)
            print(f"toolfuzz {args.command}: internal error, a bug in toolfuzz {__version__} "
                  f"({type(e).__name__}: {' '.join(str(e).split())[:200]}); "
                  + (f"the traceback is in {where}" if where else "its traceback is above")
                  + "; please report it", file=sys.stderr)
            return Exit.INTERNAL


def _under_the_hash_seed() -> None:
    """Run this very command again under toolfuzz's hash seed when the user chose none (:mod:`toolfuzz.hash_seed`):
    Python reads the seed only as it starts, and the same ``--seed`` must give the same run."""
    environ = pinned()
    if environ is not None:
        os.execve(sys.executable, sys.orig_argv, environ)


def _keep_traceback(state: Path, command: str, argv: list[str]) -> Path | None:
    """The exception being handled written to ``STATE/crashes/``; where a file cannot be written, to stderr."""
    text = traceback.format_exc()
    path = state / "crashes" / f"{command}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.txt"
    try:
        from toolfuzz.corpus.fixtures import write_atomic

        kept(state)
        write_atomic(path, f"toolfuzz {__version__}: toolfuzz {shlex.join(argv)}\n{text}")
    except Exception:  # noqa: BLE001 - the traceback must reach someone
        sys.stderr.write(text)
        return None
    return path
