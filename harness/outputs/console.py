"""``toolfuzz run`` on a terminal: the run's events as a live line, or as plain lines now and then in a file."""

from __future__ import annotations

import os
import shlex
import time
from typing import TextIO

from toolfuzz.corpus.findings import FindingWriter
from toolfuzz.engine.events import Event, Finding, Finished, Found, Note, Progress, Started, Stats, signature_of
from toolfuzz.identity import CrashState
from toolfuzz.outputs.tables import hanging, terminal_width

__all__ = ["Console"]

#: Why a run ended, as a person says it.
_WHY = {"examples": "examples spent", "budget": "time spent", "interrupted": "interrupted",
        "found": "found what was searched for"}


#: What stands for a crash state in a signature shown with the state on a line of its own.
_ELSEWHERE = CrashState("…")


class Console:
    """Consumes a run's events; a finding is shown with the file ``writer`` put it in.

    With ``fit`` (a terminal's width, :func:`~toolfuzz.outputs.tables.terminal_width`), what is said in
    words is folded to it; a path and a command to copy never are, so that each can be copied whole, nor
    is a root cause's name, but that a raise's crash state, too long for the line, goes on one of its own.
    """

    def __init__(self, stream: TextIO, writer: FindingWriter, fit: int | None = None) -> None:
        self.stream = stream
        self.writer = writer
        self.fit = fit
        self.live = stream.isatty() and os.environ.get("TERM") != "dumb"
        # The live line is cut to the terminal even with --wide: once the terminal folds it, a carriage
        # return takes back only its last part.
        self.cut = terminal_width(stream) if self.live else None
        self.last_plain = 0.0
        self.width = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            n = len(event.targets)
            self.line(self._said(f"toolfuzz run: {n} target{'s' * (n != 1)}, seed {event.seed} (rerun with --seed "
                                 f"{event.seed}), " + (f"up to {event.max_examples} examples or "
                                                       if event.max_examples < 10**12 else "for ")
                                 + f"{event.budget:g} s; findings go to", 2, f"{self.writer.root}/"))
        elif isinstance(event, Note):
            self.line(f"note: {event.text}")
        elif isinstance(event, Found):
            path, what = self.writer.where(event.finding)
            finding = event.finding
            note = "" if what == "written" else " (a smaller fixture was already there)"
            more = "".join("\n" + self._said(f"  replaces {old} (it needed more features)") for old in event.replaces)
            grade = finding.grade
            said = self._said(f"  {grade.severity.value}: {finding.divergence.detail}") + "\n" + self._said(
                f"  ({grade.why})")
            self.line(f"diverges: {self._name(finding)}\n{said}\n  -> {path}{note}\n"
                      f"  toolfuzz show {shlex.quote(str(path))}{more}")
        elif isinstance(event, Progress):
            self._progress(event.stats, event.phase)
        elif isinstance(event, Finished):
            self._finished(event.stats)

    def _name(self, finding: Finding) -> str:
        """The finding's signature, whole; where a raise's does not fit the terminal, its crash state (the
        part between brackets) goes on a line of its own, folded at its frames."""
        name = finding.signature
        if self.fit is None or finding.state is None or len("diverges: ") + len(name) <= self.fit:
            return name
        short = signature_of(finding.target.name, finding.divergence.kind, finding.features, _ELSEWHERE)
        return f"{short}\n" + self._said(f"  [{_ELSEWHERE}] is the crash state {finding.state}")

    def line(self, text: str) -> None:
        self._clear()
        print(text, file=self.stream, flush=True)

    def _said(self, text: str, indent: int = 4, whole: str = "") -> str:
        """``text`` folded to the terminal, then ``whole`` (a path), which is never broken: on the last line
        when it fits there, else on a line of its own."""
        lines = hanging(text, self.fit, indent)
        if whole and self.fit is not None and len(lines[-1]) + 1 + len(whole) > self.fit:
            lines.append(" " * indent + whole)
        elif whole:
            lines[-1] += " " + whole
        return "\n".join(lines)

    def _clear(self) -> None:
        if self.live and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0

    def _progress(self, stats: Stats, phase: str) -> None:
        found = sum(stats.divergences.values())
        hits = sum(stats.hits.values())
        rate = stats.examples / stats.elapsed if stats.elapsed > 0 else 0.0
        text = (f"{stats.examples} examples ({rate:.0f}/s), {found} root cause{'s' * (found != 1)}, "
                f"{hits} hit{'s' * (hits != 1)}")
        if stats.reducing:
            text += f", reducing {stats.reducing}"
        if phase:
            text += f", {phase}"
        text += f", {stats.elapsed:.0f} s"
        if self.live:
            self._clear()
            text = text[:self.cut - 1] if self.cut else text
            self.stream.write(text)
            self.stream.flush()
            self.width = len(text)
        elif time.monotonic() - self.last_plain >= 10:
            self.last_plain = time.monotonic()
            print(self._said(text, 2), file=self.stream, flush=True)

    def _finished(self, stats: Stats) -> None:
        self._clear()
        why = _WHY.get(stats.stopped_by, stats.stopped_by)
        hits = sum(stats.hits.values())
        print(self._said(f"done: {stats.examples} examples in {stats.elapsed:.1f} s ({why}); {hits} later divergence"
                         f"{'s' * (hits != 1)} counted as hits of the root causes above; "
                         f"{stats.reducing_seconds:.1f} s reducing ({stats.probes} probes)", 2),
              file=self.stream, flush=True)
        if stats.unreduced:
            print(self._said(f"not reduced: {stats.unreduced} divergence{'s' * (stats.unreduced != 1)} of known "
                             "targets, kinds and crash states met when the share for reducing was spent, or time-outs "
                             "met too late to run again (a longer --budget reduces them)", 2),
                  file=self.stream, flush=True)
        for message in stats.flaky:
            print(f"flaky: {message}", file=self.stream)
