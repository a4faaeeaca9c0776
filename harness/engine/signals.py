"""SIGINT and SIGTERM during a run: stop at the next case, print the summary, exit as usual."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Callable, Iterator

__all__ = ["Stopping", "stop_on_signals"]


class Stopping:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._then: list[Callable[[], None]] = []

    def is_set(self) -> bool:
        return self._event.is_set()

    def then(self, action: Callable[[], None]) -> None:
        """Also run ``action`` when a stop is asked (it must be safe in a signal handler)."""
        self._then.append(action)
        if self.is_set():
            action()

    def set(self) -> None:
        self._event.set()
        for action in self._then:
            action()


@contextlib.contextmanager
def stop_on_signals() -> Iterator[Stopping]:
    """The first SIGINT or SIGTERM asks for a stop; a second one acts as it would have without this."""
    stopping = Stopping()
    if threading.current_thread() is not threading.main_thread():
        yield stopping
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum: int, frame: object) -> None:
        for s, old in previous.items():
            signal.signal(s, old)
        stopping.set()

    for s in previous:
        signal.signal(s, handler)
    try:
        yield stopping
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
