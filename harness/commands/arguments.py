"""Argument types shared by the subcommands: each rejects bad input with one line, through argparse."""

from __future__ import annotations

import argparse
import math

from targets.base import LEVELS


def positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not positive")
    return n


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def add_target_options(p: argparse.ArgumentParser, default_targets: str) -> None:
    """``--target``, ``--level`` and ``--timeout``, the same for every command that runs targets."""
    p.add_argument("--target", action="append", default=[], metavar="SPEC",
                   help="a built-in target name, 'selftest', module:attr or path/file.py:attr (repeatable; "
                   f"default: {default_targets})")
    p.add_argument("--level", choices=LEVELS, default="events",
                   help="what a plain-function target is handed: parsed chunks (events) or network reads (bytes)")
    p.add_argument("--timeout", type=positive_seconds, default=5.0, metavar="SECONDS",
                   help="time limit per case per target (default 5)")
