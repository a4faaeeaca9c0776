"""Standard output and error whose reader may go away: ``toolfuzz run | head``, Ctrl-C under ``| tee log``.

Writing to a pipe whose reader has gone raises BrokenPipeError.  Left to
unwind, it would end a command wherever it was, and its exit status would
no longer say what the command found.  :func:`guarded` wraps both streams
for the length of a command: a write to a gone reader is dropped, the
stream is marked gone, and whoever asked (:func:`when_gone`: a run stops at
its next case) is told.  A command's result goes to standard error when
standard output is gone (:func:`result`).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Any, Callable, Iterator, TextIO

__all__ = ["Outlet", "guarded", "when_gone", "result"]


class Outlet:
    """A text stream that drops what it is given once its reader has gone, and says so once."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.gone = False
        self._then: list[Callable[[], None]] = []

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._lost()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._lost()

    def isatty(self) -> bool:
        return not self.gone and self.stream.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def when_gone(self, action: Callable[[], None]) -> None:
        self._then.append(action)
        if self.gone:
            action()

    def _lost(self) -> None:
        self.gone = True
        # What is still buffered is flushed again at exit, and a flush that fails there makes the interpreter
        # print a traceback and exit 120: the descriptor is pointed at the null device instead.
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            fd = self.stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, fd)
            finally:
                os.close(null)
        for action in self._then:
            action()


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as :class:`Outlet` for the length of the block."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Outlet(saved[0]), Outlet(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def when_gone(stream: Any, action: Callable[[], None]) -> None:
    """Run ``action`` once ``stream`` (an :class:`Outlet`; any other stream never tells) has lost its reader."""
    if isinstance(stream, Outlet):
        stream.when_gone(action)


def result(text: str) -> None:
    """A command's result on standard output, or on standard error when no one reads standard output."""
    sys.stdout.write(text)
    sys.stdout.flush()
    if getattr(sys.stdout, "gone", False):
        sys.stderr.write(text)
        sys.stderr.flush()
