"""``toolfuzz run`` on a terminal: the run's events as a live line, or as plain lines now and then in a file."""

from __future__ import annotations

import os
import time
from typing import TextIO

from toolfuzz.corpus.findings import FindingWriter
from toolfuzz.engine.events import Event, Finished, Found, Note, Progress, Started, Stats

__all__ = ["Console"]

#: Why a run ended, as a person says it.
_WHY = {"exhausted": "a round found nothing new", "examples": "examples spent", "budget": "time spent",
        "rounds": "round limit"}


class Console:
    """Consumes a run's events; a finding is shown with the file ``writer`` put it in."""

    def __init__(self, stream: TextIO, writer: FindingWriter) -> None:
        self.stream = stream
        self.writer = writer
        self.live = stream.isatty() and os.environ.get("TERM") != "dumb"
        self.last_plain = 0.0
        self.width = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            n = len(event.targets)
            self.line(f"toolfuzz run: {n} target{'s' * (n != 1)}, seed {event.seed} (rerun with --seed "
                      f"{event.seed}), up to {event.max_examples} examples or {event.budget:g} s")
        elif isinstance(event, Note):
            self.line(f"note: {event.text}")
        elif isinstance(event, Found):
            path, what = self.writer.where(event.finding)
            finding = event.finding
            note = "" if what == "written" else " (a smaller fixture was already there)"
            self.line(f"diverges: {finding.signature}\n  {finding.divergence.detail}\n"
                      f"  -> {path}{note}\n  toolfuzz show {path}")
        elif isinstance(event, Progress):
            self._progress(event.stats)
        elif isinstance(event, Finished):
            self._finished(event.stats)

    def line(self, text: str) -> None:
        self._clear()
        print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self.live and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0

    def _progress(self, stats: Stats) -> None:
        found = sum(stats.divergences.values())
        text = f"{stats.examples} examples, {found} divergence{'s' * (found != 1)}"
        if stats.shrinking:
            text += f", shrinking {stats.shrinking} more"
        text += f", {stats.elapsed:.0f} s"
        if self.live:
            self._clear()
            self.stream.write(text)
            self.stream.flush()
            self.width = len(text)
        elif time.monotonic() - self.last_plain >= 10:
            self.last_plain = time.monotonic()
            print(text, file=self.stream, flush=True)

    def _finished(self, stats: Stats) -> None:
        self._clear()
        why = _WHY.get(stats.stopped_by, stats.stopped_by)
        print(f"done: {stats.examples} examples in {stats.rounds} round{'s' * (stats.rounds != 1)}, "
              f"{stats.elapsed:.1f} s ({why})", file=self.stream, flush=True)
        for message in stats.flaky:
            print(f"flaky: {message}", file=self.stream)
