"""Processes, read from /proc: what a run started, and whether any of it outlived the run."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Iterable

#: How long a process that is being killed may take to go: only one that outlives what should end it waits
#: this long, so it can be generous on a loaded machine.
GONE_LIMIT = 60

Process = tuple[int, int]  # pid and start time: a pid alone may be reused by the time it is looked at


def _stat(pid: int) -> tuple[str, int, int] | None:
    """State, parent and start time of a process; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()  # the name, in parentheses, may hold spaces
    return fields[0], int(fields[1]), int(fields[19])


def descendants(root: int) -> dict[Process, int]:
    """Every live process below ``root``, with its parent's pid."""
    parents: dict[int, tuple[int, int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None and stat[0] != "Z":
            parents[int(entry.name)] = (stat[1], stat[2])
    found: dict[Process, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, start) in parents.items():
            if ppid == parent:
                found[(pid, start)] = ppid
                frontier.append(pid)
    return found


def survivors(family: Iterable[Process], limit: float = GONE_LIMIT) -> list[Process]:
    """Those of ``family`` still alive after ``limit`` seconds (killed then, so that a failure leaves none)."""

    def alive() -> list[Process]:
        # A zombie has ended; whoever adopted it may not reap it at once (or at all, in a container).
        return [(pid, start) for pid, start in family
                if (stat := _stat(pid)) is not None and stat[2] == start and stat[0] != "Z"]

    end = time.monotonic() + limit
    while (left := alive()) and time.monotonic() < end:
        time.sleep(0.2)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def marked(marker: str) -> list[Process]:
    """Every live process whose command line holds ``marker`` (a path a test made: no other process has it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        stat = _stat(int(entry.name))
        if marker.encode() in command and stat is not None and stat[0] != "Z":
            found.append((int(entry.name), stat[2]))
    return found
