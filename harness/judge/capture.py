"""What a target writes to standard output and standard error while it runs: kept for its finding, never
mixed into the run's own output.

A target's ``print`` lands in ``sys.stdout``, a C extension's ``printf`` in the C library's buffer, a
C extension's ``write`` in file descriptor 1 itself; the run's own output (a table, ``--json``, the
subprocess protocol of ``toolfuzz serve``) goes to the same descriptor.  So for the length of each call
descriptors 1 and 2 point at two files of this process's own, ``sys.stdout`` and ``sys.stderr`` at writers
to them, the buffers are flushed into them on the way out, and what the call left there is read back (its
two ends, :func:`~toolfuzz.vocabulary.kept_output`) and the files emptied for the next call.  A call that
wrote nothing costs eight system calls and no read (about 4 µs; ``bench.workers``' search does not see it).

One process, one pair of descriptors: a call on another thread while one is captured is not captured (its
output is the first call's, at worst), and a capture never nests.  A worker keeps its files where its
supervisor can read them (:func:`keep_in`), so that the output of a call that killed it is not lost with it.
"""

from __future__ import annotations

import atexit
import ctypes
import io
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from toolfuzz.vocabulary import Output, kept_from

__all__ = ["begin", "end", "keep_in", "read_kept"]

def _c_flush() -> Callable[[Any], Any]:
    """The C library's ``fflush``: what a C extension printed to a pipe waits in its buffer until then."""
    try:
        flush = ctypes.CDLL(None).fflush
    except (OSError, AttributeError):
        return lambda stream: None
    flush.argtypes = [ctypes.c_void_p]
    return flush


class _Capture:
    # Written out stream by stream, without loops: this runs twice a target call.

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: The files a call's stdout and stderr go to (descriptors of this process), made on first use.
        self.files: tuple[int, int] | None = None
        #: Two descriptors of this process's own that hold 1 and 2 as they were before the call, made on first
        #: use and written over by each call (no closing: one system call the less, twice a call).
        self.slots: tuple[int, int] | None = None
        #: While a call is captured: whether descriptors 1 and 2 were open before it, and sys.stdout and
        #: sys.stderr as they were; else None.
        self.saved: tuple[bool, bool, Any, Any] | None = None
        #: What sys.stdout and sys.stderr are during a call: writers straight to descriptors 1 and 2, so that a
        #: print is caught whatever sys.stdout was (pytest's capture, a notebook's stream), and at once.
        self.streams: tuple[io.TextIOWrapper, io.TextIOWrapper] | None = None
        self.c_flush = _c_flush()

    def begin(self) -> bool:
        if not self.lock.acquire(False):
            return False
        try:
            if self.files is None:
                self.files = (_anonymous(), _anonymous())
            if self.slots is None:
                self.slots = (os.dup(self.files[0]), os.dup(self.files[1]))  # any descriptors: written over
            out, err = self.files
            slot_out, slot_err = self.slots
            _flush(sys.stdout)  # what the run wrote before the call is the run's
            _flush(sys.stderr)
            self.saved = (_held(1, slot_out), _held(2, slot_err), sys.stdout, sys.stderr)
            os.dup2(out, 1)
            os.dup2(err, 2)
            if self.streams is None:
                self.streams = (_writer(1), _writer(2))
            sys.stdout, sys.stderr = self.streams
        except BaseException:
            self.restore()
            self.lock.release()
            raise
        return True

    def end(self) -> Output:
        try:
            try:
                if self.saved is not None:
                    # A library that kept the run's own sys.stdout at import wrote into its buffer.
                    _flush(self.saved[2])
                    _flush(self.saved[3])
                self.c_flush(None)
            finally:
                self.restore()
            out, err = self.files  # type: ignore[misc]
            return Output(_taken(out), _taken(err)) if os.lseek(out, 0, 1) or os.lseek(err, 0, 1) else _NOTHING
        finally:
            self.lock.release()

    def restore(self) -> None:
        saved, self.saved = self.saved, None
        if saved is not None:
            slot_out, slot_err = self.slots  # type: ignore[misc]
            sys.stdout, sys.stderr = saved[2], saved[3]
            _put(1, slot_out, saved[0])
            _put(2, slot_err, saved[1])

    def keep_in(self, stdout: Path, stderr: Path) -> None:
        with self.lock:
            old = self.files
            flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
            self.files = (os.open(stdout, flags, 0o666), os.open(stderr, flags, 0o666))
            for fd in old or ():
                os.close(fd)

    def forget(self) -> None:
        # A forked child must not write into, or empty, files its parent reads: it makes its own on first use.
        self.lock = threading.Lock()
        self.files = self.slots = self.saved = None


_NOTHING = Output()


def _anonymous() -> int:
    fd, path = tempfile.mkstemp(prefix="toolfuzz-output-")
    os.unlink(path)
    os.set_inheritable(fd, False)
    return fd


def _held(fd: int, slot: int) -> bool:
    """Hold ``fd`` in ``slot``; False when ``fd`` is closed (it is closed again after the call)."""
    try:
        os.dup2(fd, slot, inheritable=False)
    except OSError:
        return False
    return True


def _put(fd: int, slot: int, was_open: bool) -> None:
    if was_open:
        os.dup2(slot, fd)
    else:
        os.close(fd)


def _writer(fd: int) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                            write_through=True)


def _flush(stream: Any) -> None:
    try:
        if stream is not None:
            stream.flush()
    except (OSError, ValueError):
        pass  # a closed or broken stream: what it held is lost either way


def _taken(fd: int) -> str:
    """What the call wrote to ``fd``'s file, kept by its two ends; the file is emptied for the next call."""
    size = os.lseek(fd, 0, os.SEEK_CUR)  # how far the call's writes moved the offset: the file starts empty
    if not size:
        return ""
    text = kept_from(fd, 0, size)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    return text


_capture = _Capture()
os.register_at_fork(after_in_child=_capture.forget)


def begin() -> bool:
    """Divert descriptors 1 and 2 for a target call; False (and nothing done) when another call holds them."""
    return _capture.begin()


def end() -> Output:
    """Put descriptors 1 and 2 back after a call :func:`begin` diverted, and what the call wrote."""
    return _capture.end()


def keep_in(stdout: Path, stderr: Path) -> None:
    """Capture calls' output into these two files from now on (made, or emptied, now)."""
    _capture.keep_in(stdout, stderr)


def read_kept(stdout: Path, stderr: Path) -> Output:
    """What a process that captured into these files (:func:`keep_in`) had of the call it was in when it ended."""
    parts = []
    for path in (stdout, stderr):
        try:
            with open(path, "rb") as f:
                parts.append(kept_from(f.fileno(), 0, os.fstat(f.fileno()).st_size))
        except OSError:
            parts.append("")
    return Output(*parts)


@atexit.register
def _put_back() -> None:
    # Interrupted between diverting and putting back (a second Ctrl-C), the run would say its last words
    # into a file nobody reads.
    if _capture.saved is not None:
        _capture.restore()
