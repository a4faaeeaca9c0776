"""How a process that ran a target tells its parent the target killed it: exit statuses and their names.

A worker (:mod:`toolfuzz.engine.worker`) and a replay's child (:mod:`toolfuzz.judge.child`)
both run a target with :func:`exiting_on_fatal` around it, and their parents
read the exit status with :func:`death_of`.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
from typing import Any, Callable

__all__ = ["MEMORY_EXIT", "EXIT_EXIT", "exiting_on_fatal", "death_of", "cap_memory"]

#: Exit status of a process whose target ran out of memory (MemoryError under the cap).
MEMORY_EXIT = 97
#: Exit status of a process whose target raised SystemExit: its process would have ended.
EXIT_EXIT = 98


def exiting_on_fatal(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, but the process ends at once on what would end it outside the harness."""
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemoryError:
            # Short of memory, nothing here can be trusted to finish: end now, and say why by the status.
            os._exit(MEMORY_EXIT)
        except SystemExit:
            os._exit(EXIT_EXIT)
    return call


#: glibc's ``mallopt`` parameter for the most malloc arenas a process keeps.
_M_ARENA_MAX = -8


def cap_memory(soft: int, hard: int) -> None:
    """Cap the process's address space at ``soft`` (``hard`` the most it may raise it to), and keep it one malloc
    arena, so that the cap is reached by what targets allocate.

    Under glibc each thread that allocates gets an arena of its own, which reserves 64 MB of address space it
    never uses; a library whose thread pool grows by a thread now and then (litellm's logging) passed a 2-GB cap
    after some thousand cases that way, and raised "can't start new thread" on a case that had nothing to do
    with it.  Where there is no ``mallopt`` (not glibc), the cap is set alone.

    A limit already lower (``ulimit -v``) stands: a process may lower its hard limit, never raise it.
    """
    try:
        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, 1)
    except (OSError, AttributeError):
        pass
    limit = resource.getrlimit(resource.RLIMIT_AS)[1]
    if limit != resource.RLIM_INFINITY:
        hard = limit if hard == resource.RLIM_INFINITY else min(hard, limit)
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def death_of(code: int | None, what: str = "the process") -> tuple[str, str]:
    """(kind, detail) for a process that ended with ``code`` without answering."""
    if code == MEMORY_EXIT:
        return "memory", "MemoryError under the memory cap"
    if code == EXIT_EXIT:
        return "crash", "raised SystemExit: the process would have ended"
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return "crash", f"{what} was killed by {name}"
    return "crash", f"{what} exited with status {code}"
