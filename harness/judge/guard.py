"""The walls a target runs between: no socket, process or write outside the temporary folder, and a time limit.

While a target runs, an audit hook refuses sockets, processes and writes outside the temporary folder (so it
holds for C extensions' Python-level calls too) by raising :class:`TargetBlocked` in the target, naming what
it tried and the frames of its code that tried it; SIGALRM, on the main thread, raises
:class:`TargetTimedOut` in it once its time is up, and again until it stops.  Both are BaseExceptions, so that
``except Exception`` in a target cannot eat them.  Outside a target call the hook and the alarm do nothing.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from typing import Any

from toolfuzz.judge.crash_state import own_frames, stack_of

__all__ = ["TargetBlocked", "TargetTimedOut", "install_hook", "on_alarm", "AGAIN", "state"]


class TargetBlocked(BaseException):
    """Raised inside a target that tried to act on the world.  A BaseException so `except Exception` cannot eat it."""


class TargetTimedOut(BaseException):
    """Raised inside a target past its time limit."""


#: Seconds between the alarms that follow a target's first, until it stops.
AGAIN = 0.2


#: Whether this thread is inside a target call: ``active``, the hook refuses; ``timing``, the alarm raises.
state = threading.local()
#: The module that calls targets (toolfuzz.judge.sandbox): a blocked action's frames end at it.
_RUNNER = "toolfuzz.judge.sandbox"
_BLOCKED_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
                   "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "pty.spawn"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not getattr(state, "active", False):
        return
    if event in _BLOCKED_EVENTS:
        state.active = False
        raise TargetBlocked(f"{event} {_brief(args)}{_from_where()}")
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writes = (isinstance(mode, str) and any(m in mode for m in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writes and isinstance(path, (str, bytes)) and not _in_temp(path):
            state.active = False
            raise TargetBlocked(f"open for writing {path!r}{_from_where()}")


def _from_where() -> str:
    """`` from module.function < module.caller``: the target's own innermost frames that acted, as a crash state
    names them.  What was blocked alone (``subprocess.Popen ('uname', ...)``) does not say which library ran
    it, or on which of its paths: the openai SDK runs ``uname -p`` for its platform headers on a client's first
    request, and the maintainer needs that frame to see it."""
    # Past this function and the audit hook, up to the sandbox's frame that called the target: what called the
    # sandbox is not the target's.
    own = own_frames(stack_of(sys._getframe(2), until=_RUNNER))
    return f" from {' < '.join(own)}" if own else ""


_temp: str | None = None


def _in_temp(path: str | bytes) -> bool:
    assert _temp is not None
    p = os.path.realpath(os.fsdecode(path))
    return p == _temp or p.startswith(_temp + os.sep)


def _brief(args: tuple[Any, ...]) -> str:
    return repr(args)[:120]


def install_hook() -> None:
    global _hook_installed, _temp
    if not _hook_installed:
        # Before the hook: the first gettempdir() writes a probe file, which
        # inside a target would re-enter the hook under tempfile's lock.
        _temp = os.path.realpath(tempfile.gettempdir())
        sys.addaudithook(_audit)  # audit hooks cannot be removed; it is inert outside a target call
        _hook_installed = True


def on_alarm(signum: int, frame: Any) -> None:
    if getattr(state, "timing", False):
        state.active = False  # what the target does on its way out is not its work, and not blocked
        raise TargetTimedOut()
