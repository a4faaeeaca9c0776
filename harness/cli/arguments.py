"""Argument types shared by the subcommands: each rejects bad input with one line, through argparse."""

from __future__ import annotations

import argparse
import math
import re
from typing import TYPE_CHECKING

from toolfuzz.errors import UsageError
from toolfuzz.vocabulary import DIALECTS, TEXT_DIALECTS

if TYPE_CHECKING:
    from toolfuzz.severity import Severity
    from toolfuzz.targets.base import Target

# The judge and the targets (and through them the reference, jsonschema and the
# adapters) are imported by the functions that use them, not here: every
# subcommand imports this module, and ``toolfuzz assemble`` must start fast.


def positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not positive")
    return n


# A night is easier to say as 8h than as 28800; a bare number stays seconds. A unit
# is required after another unit, so "1h30" is refused rather than guessed.
_DURATION = re.compile(r"(?:(?P<h>\d+(?:\.\d*)?)h)?(?:(?P<m>\d+(?:\.\d*)?)m)?(?:(?P<s>\d+(?:\.\d*)?)s)?")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0}


def positive_seconds(text: str) -> float:
    """A positive duration: seconds (``90``, ``2.5``) or with units (``90s``, ``30m``, ``8h``, ``1h30m``)."""
    try:
        value = float(text)
    except ValueError:
        match = _DURATION.fullmatch(text.strip().lower())
        if match is None or not any(match.groupdict().values()):
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a duration: give seconds, or numbers with h, m or s (90, 30m, 8h, 1h30m)") from None
        value = sum(float(part) * _UNIT_SECONDS[unit] for unit, part in match.groupdict().items() if part)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive duration")
    return value


def severity_option(text: str) -> "Severity":
    """``--fail-on``'s value: a severity of toolfuzz.severity."""
    from toolfuzz.severity import Severity

    try:
        return Severity.parse(text.strip().lower())
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_target_options(p: argparse.ArgumentParser, default_targets: str) -> None:
    """``--target``, ``--level`` and ``--timeout``, the same for every command that runs targets."""
    from toolfuzz.targets.base import LEVELS

    p.add_argument("--target", action="append", default=[], metavar="SPEC",
                   help="a built-in target name, 'selftest', module:attr, path/file.py:attr, or cmd:\"COMMAND\" for "
                   "a program in any language speaking docs/subprocess.md (repeatable; "
                   f"default: {default_targets})")
    p.add_argument("--level", choices=LEVELS, default="events",
                   help="what a plain-function target is handed and returns: parsed chunks in, calls out (events); "
                   "network reads in, calls out (bytes); network reads in, SSE events out (sse); one prefix of an "
                   "argument text in, the value it shows out (partial); a model's text in batches in, what a server "
                   "streams and parses out (producer: serving engines' tool parsers); see docs/levels.md")
    p.add_argument("--timeout", type=positive_seconds, default=5.0, metavar="DURATION",
                   help="time limit per case per target, in seconds or like 1m (default 5 s)")


def add_dialect_option(p: argparse.ArgumentParser, what: str, default: str | None = "openai-chat",
                       text: bool = False) -> None:
    """``--dialect``, the same for every command: ``what`` says what it chooses in this command; with ``text``,
    the producer level's formats too."""
    choices = DIALECTS + TEXT_DIALECTS if text else DIALECTS
    more = f"; at --level producer, one of {', '.join(TEXT_DIALECTS)} (default: every format its targets read)" \
        if text else ""
    p.add_argument("--dialect", choices=choices, default=default, metavar="DIALECT",
                   help=f"{what} (one of {', '.join(DIALECTS)}; default {default or 'every dialect'}{more}; "
                   "see docs/dialects.md)")


def add_wide_option(p: argparse.ArgumentParser, what: str = "its tables") -> None:
    """``--wide``, the same for every command that prints tables: on a terminal (or with COLUMNS set) they are
    fitted to its width; this prints them whole, as a pipe gets them."""
    p.add_argument("--wide", action="store_true",
                   help=f"print {what} whole, every column and name, however wide the terminal (a pipe or a file "
                   "always gets them whole; on a terminal, or with COLUMNS set, they are fitted to its width)")


def memory_size(text: str) -> int:
    """Bytes from ``2G``, ``512M``, ``1.5GiB`` or a plain number of bytes; ``none`` for no cap (0)."""
    if text.strip().lower() in ("none", "0"):
        return 0
    number = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(number[-1:], 1)
    try:
        value = float(number[:-1] if scale > 1 else number) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 512M or 2G") from None
    if not math.isfinite(value) or value < 64 * 2**20:
        raise argparse.ArgumentTypeError(f"{text} is below 64M, too little to run the harness in")
    return int(value)


def targets_for(specs: list[str], level: str, dialect: str) -> list[Target]:
    """The targets of ``--target`` specs (or every installed built-in one) that run on ``dialect`` cases.

    A plain function runs in every dialect; a built-in or declared target must
    list it, and naming one that does not is a usage error.  ``selftest`` keeps
    the mutants that make sense in the dialect.
    """
    from toolfuzz.targets.specs import default_targets, resolve_each

    if level == "producer":
        return _producers(specs, dialect)
    if dialect in TEXT_DIALECTS:
        raise UsageError(f"--dialect {dialect} is a model's text: it goes with --level producer")
    if not specs:
        return [t for t in default_targets() if dialect in t.dialects]
    out: list[Target] = []
    for spec, group in resolve_each(specs, level):
        fit = [t for t in group if dialect in t.dialects]
        if not fit:
            t = group[0]
            raise UsageError(f"--target {spec}: {t.name} does not support --dialect {dialect} "
                             f"(it supports {', '.join(t.dialects)})")
        for t in fit:
            if t.name in {x.name for x in out}:
                raise UsageError(f"--target {spec}: a target named {t.name!r} is already in this run")
            out.append(t)
    return out


def _producers(specs: list[str], dialect: str) -> list[Target]:
    """The producer targets of ``specs`` (none given: every one here or in a built-in environment that exists),
    those reading ``dialect`` when it is a format."""
    from toolfuzz.targets.specs import default_producers, resolve_each

    specs = specs or default_producers()
    out: list[Target] = []
    for spec, group in resolve_each(specs, "producer"):
        for t in group:
            if t.level != "producer":
                raise UsageError(f"--target {spec}: {t.name} is a target at level {t.level}, not a serving engine's "
                                 f"parser (--level producer)")
            if dialect in TEXT_DIALECTS and dialect not in t.dialects:
                continue
            if t.name in {x.name for x in out}:
                raise UsageError(f"--target {spec}: a target named {t.name!r} is already in this run")
            out.append(t)
    if not out:
        raise UsageError(f"no target of those given reads {dialect} (--level producer)")
    return out


def producer_dialects(targets: list[Target], dialect: str) -> tuple[str, ...]:
    """The formats a producer run draws its cases in: ``dialect`` when it is one, else every one its targets read."""
    if dialect in TEXT_DIALECTS:
        return (dialect,)
    return tuple(d for d in TEXT_DIALECTS if any(d in t.dialects for t in targets))
