"""Running one target on one case in a child process, for a fixture whose target killed its worker.

A fixture of kind ``crash``, ``hang`` or ``memory`` records a case on which
the target took its whole process down.  Replayed in the replaying process,
it would take the replay down with it (a segfault), stall it (a loop deaf
to the time limit) or eat the machine (an allocation without bound).  So
that target runs in a forked child, under a memory cap, watched by a clock,
and how the child ends is what the cell reports:

* it answers: the :class:`~toolfuzz.judge.observation.Observation`, judged as usual
  (the library may have fixed its bug);
* it is killed by a signal: ``crash``;
* it raises ``SystemExit`` (its process would have ended): ``crash``;
* it raises ``MemoryError`` under the cap: ``memory``;
* it is still running ``timeout`` plus a grace after the case began: ``hang``.

A fork, not a fresh interpreter: the target (a closure, a loaded module, a
running program behind ``cmd:``) is already in memory, and nothing has to
be pickled on the way in.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import resource
import time
from typing import Any

from toolfuzz.judge.compare import Divergence
from toolfuzz.judge.exits import cap_memory, death_of, exiting_on_fatal
from toolfuzz.vocabulary import Case
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.base import Target

__all__ = ["ISOLATED_KINDS", "MEMORY_HEADROOM", "observe_isolated"]

#: Recorded kinds whose target is replayed in a child of its own.
ISOLATED_KINDS = frozenset({"crash", "hang", "memory"})
#: Address space the child may add to what the replaying process already maps.
MEMORY_HEADROOM = 2**30


def observe_isolated(target: Target, case: Case, payloads: list[bytes] | None, timeout: float,
                     headroom: int = MEMORY_HEADROOM) -> Observation | Divergence:
    """What ``target`` does with ``case`` in a child process: its observation, or how the child died."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(writer, target, case, payloads, timeout, headroom), daemon=True)
    grace = max(1.0, timeout / 2)
    started = time.monotonic()
    child.start()
    writer.close()
    try:
        # The child writes its answer before it exits; a large answer must be read while it waits to.
        if reader.poll(timeout + grace):
            try:
                answer = reader.recv()
            except (EOFError, OSError):
                answer = None
            if answer is not None:
                child.join(grace)
                return answer
        elif child.is_alive():
            return Divergence("hang", f"still running {time.monotonic() - started:.1f} s into the case; killed")
        child.join(grace)
        kind, detail = death_of(child.exitcode)
        return Divergence(kind, "MemoryError under the replay's memory cap" if kind == "memory" else detail)
    finally:
        if child.is_alive():
            child.kill()
            child.join()
        reader.close()


def _child(conn: Any, target: Target, case: Case, payloads: list[bytes] | None, timeout: float,
           headroom: int) -> None:
    faulthandler.disable()  # a crash is the answer here, not something to dump a traceback for
    mapped = _address_space()
    if mapped:
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        soft = mapped + headroom if hard == resource.RLIM_INFINITY else min(mapped + headroom, hard)
        cap_memory(soft, hard)
    observation = observe(target.wrapped(exiting_on_fatal), case, payloads, timeout)
    conn.send(observation)
    conn.close()
    os._exit(0)  # no atexit handlers of the parent's, no flushing of its buffers twice


def _address_space() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
