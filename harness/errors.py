"""The error every command turns into one clear line and exit status 2, the exit statuses themselves, and the
up-front check that a folder can be written."""

import os
import secrets
from enum import IntEnum
from pathlib import Path


class UsageError(Exception):
    """Bad arguments or unreadable input: say what and where, in one line."""


class Exit(IntEnum):
    """What a command's exit status says, whatever became of its output (docs/commands.md)."""

    #: Done, and nothing found.
    OK = 0
    #: Done (or stopped early) with something found: a divergence, a stream error, a stale page.
    FOUND = 1
    #: Bad arguments or input, said in one line; nothing was run, or the input at fault was set aside.
    USAGE = 2
    #: A bug in toolfuzz itself: one line says so and where its traceback went.
    INTERNAL = 3
    #: Stopped by Ctrl-C, SIGTERM or its output being closed before anything was found (128 + SIGINT).
    INTERRUPTED = 130


def need_writable(folder: str | os.PathLike[str], what: str) -> None:
    """A UsageError, ``WHAT: cannot write there: ...``, unless files can be made under ``folder``.

    The folder may not exist yet: the nearest of it and its parents that does must be a folder in which a
    file can be made, and one is made there and removed to see (permission bits do not say it all: root
    passes them, and a read-only or special file system refuses whoever asks).  Asked before a run starts,
    so that a finding met an hour in is never the first to find out.
    """
    there = Path(folder)
    while not there.exists() and there.parent != there:
        there = there.parent
    why = ""
    if not there.is_dir():
        why = f"{there} is not a folder"
    else:
        probe = there / f".toolfuzz-probe-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            os.unlink(probe)
        except OSError as e:
            why = f"{there}: {e.strerror or e}"
    if why:
        raise UsageError(f"{what}: cannot write there: {why}")
