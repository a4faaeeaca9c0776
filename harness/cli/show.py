"""``toolfuzz show FIXTURE``: a fixture as a person reads it (:mod:`toolfuzz.outputs.timeline`)."""

from __future__ import annotations

import argparse
import sys

from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import FixtureError, load, printable
from toolfuzz.outputs.timeline import render

__all__ = ["register", "run", "render"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("show", help="print a fixture as a timeline of reads, fragments and calls",
                       description="Print a fixture file as a person reads it: the network reads, the "
                       "fragments each read completed, call by call, and the expected outcome.")
    p.add_argument("fixture", metavar="FIXTURE")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        fixture = load(args.fixture)
    except FixtureError as e:
        raise UsageError(str(e)) from None
    # A fixture may hold lone UTF-16 halves (what a parser showed) and control characters: escaped, they reach
    # any terminal and any encoding, where a lone half would end the command in a UnicodeEncodeError.
    sys.stdout.write(printable(render(fixture)))
    return 0
