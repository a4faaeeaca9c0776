"""The processes of ``--workers`` die with the supervisor, however it dies: SIGKILL included.

A worker dies with its parent, the fork server (:func:`die_with_parent`), and the programs it started die
with it (``toolfuzz.targets.command``).  The fork server itself would outlive the supervisor: it ends when
the pipe from its parent says the parent is gone, and each of its children holds that pipe open too, so a
worker deep in a call that never returns (the very case the supervisor kills workers for) would keep the
fork server, itself and its programs running after a supervisor killed with SIGKILL.  So the supervisor
names itself in :data:`SUPERVISOR`, and this module, the first the fork server preloads, asks the kernel to
kill the fork server when its parent, the supervisor, dies.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["SUPERVISOR", "die_with_parent"]

#: The environment variable in which a supervisor gives its pid to the fork server it starts.
SUPERVISOR = "TOOLFUZZ_SUPERVISOR"

#: prctl's option that names the signal the kernel sends a process when its parent dies.
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: the kernel sends this process SIGKILL when its parent dies, even inside a call that never returns.
    Elsewhere nothing (a worker's own checks of its parent remain)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass


def _tether() -> None:
    named = os.environ.get(SUPERVISOR, "")
    if not named.isdigit() or os.getppid() != int(named):
        return  # imported anywhere but in a child of the supervisor that named itself: nothing to do
    die_with_parent()
    if os.getppid() != int(named):
        os._exit(1)  # the supervisor died before the kernel was told: end as it would have ended this


_tether()
