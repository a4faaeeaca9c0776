"""Where a target failed, as ClusterFuzz's crash state: the exception type and the target's own innermost frames.

Raises from the same place cluster together whatever their messages say, and a blocked action names the frames
that tried it (:mod:`toolfuzz.judge.guard`).
"""

from __future__ import annotations

import functools
import os
import sysconfig
from types import FrameType
from typing import Iterable, Iterator

from toolfuzz.identity import CrashState
__all__ = ["crash_state", "own_frames", "own_frame", "stack_of", "STATE_FRAMES"]


#: How many of the target's own frames a crash state names, innermost first.
STATE_FRAMES = 3
#: Modules whose frames are the harness running a target, not the target.  toolfuzz.targets.command is
#: the harness's end of the subprocess protocol: the program's own code is on the far side of its pipe.
_HARNESS_MODULES = ("toolfuzz.judge", "toolfuzz.engine", "toolfuzz.targets.command")
#: Top-level packages whose frames only load or drive code, and say nothing about where it failed.
_MACHINERY = frozenset({"importlib", "runpy", "hypothesis"})
#: toolfuzz.targets.specs names a target loaded by path after a hash of its path that changes from
#: one process to the next, and a script is "__main__" whatever its file; such a module is named by its
#: file instead, so that states stay comparable between runs and between a script and its import.
_LOADED_BY_PATH = "toolfuzz_target_"


def crash_state(error: BaseException) -> CrashState:
    """Where ``error`` was raised, as ClusterFuzz's crash state: its type and the frames it came through.

    The frames are the innermost :data:`STATE_FRAMES` of the target's own
    code (its module, the adapters, installed libraries), innermost first;
    the harness, the standard library and import machinery are passed over.
    No message and no line numbers: messages hold the case's data, and lines
    move between releases, so that neither would let equal crashes cluster.
    Call it where the error was caught: the catching frame is the reporter's
    and is not named.  A program behind the subprocess protocol says its own
    state (``toolfuzz.targets.command`` puts it on the exception it raises), and so may an adapter, as a
    :class:`CrashState` or as its text.
    """
    given = getattr(error, "crash_state", None)
    if isinstance(given, CrashState):
        return given
    if isinstance(given, str) and given:
        return CrashState.parse(given)
    frames: list[FrameType] = []
    tb = error.__traceback__
    # The first frame is the one that caught the error to report it (observe here, a protocol loop in a
    # program behind cmd:): the reporter, never the place that failed.
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return CrashState(type(error).__name__, tuple(own_frames(reversed(frames))))


def own_frames(innermost_first: Iterable[FrameType]) -> list[str]:
    """The first :data:`STATE_FRAMES` of these frames that are the target's own code, as ``module.function``
    each: what a crash state names, and what a blocked action is said to come from."""
    own: list[str] = []
    for frame in innermost_first:
        where = own_frame(frame)
        if where is not None:
            own.append(where)
            if len(own) == STATE_FRAMES:
                break
    return own


def stack_of(frame: FrameType | None, until: str) -> Iterator[FrameType]:
    """``frame`` and its callers, innermost first, up to the first frame of the module ``until``."""
    while frame is not None and frame.f_globals.get("__name__") != until:
        yield frame
        frame = frame.f_back


def own_frame(frame: FrameType) -> str | None:
    """``module.function`` for a frame of the target's own code, None for the harness's, stdlib's or machinery's."""
    code = frame.f_code
    module = frame.f_globals.get("__name__")
    if not isinstance(module, str) or module in ("", "__main__") or module.startswith(_LOADED_BY_PATH):
        module = os.path.splitext(os.path.basename(code.co_filename))[0] or "?"
    if any(module == m or module.startswith(m + ".") for m in _HARNESS_MODULES):
        return None
    if module.partition(".")[0] in _MACHINERY or _in_stdlib(code.co_filename):
        return None
    # The qualified name, so that two classes' methods of one name in one module are not one place.
    return f"{module}.{code.co_qualname}"


@functools.lru_cache(maxsize=4096)
def _in_stdlib(filename: str) -> bool:
    if filename.startswith("<frozen "):
        return True  # a module the interpreter was built with: os, codecs, importlib's bootstrap
    path = os.path.realpath(filename)
    stdlib, libraries = _library_prefixes()
    if not path.startswith(stdlib):
        return False
    # Installed libraries may live under the stdlib's folder (a venv's lib/pythonX.Y, a system
    # Python's site-packages), and the library under test is one of them.
    if path.startswith(libraries):
        return False
    return not {"site-packages", "dist-packages"} & set(path.split(os.sep))


@functools.lru_cache(maxsize=1)
def _library_prefixes() -> tuple[tuple[str, ...], tuple[str, ...]]:
    paths = sysconfig.get_paths()

    def prefixes(*keys: str) -> tuple[str, ...]:
        return tuple({os.path.join(os.path.realpath(paths[k]), "") for k in keys if paths.get(k)})

    return prefixes("stdlib", "platstdlib"), prefixes("purelib", "platlib")
