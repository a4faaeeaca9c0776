"""What isolating targets costs, how the search scales with workers, and whether a long run's memory stays flat.

Run: ``python -m bench.workers [--budget S] [--rounds N] [--hour]``

Each row is one ``toolfuzz run`` search (through :func:`toolfuzz.engine.runner.execute`,
no database) on the reference and the plain assembler, which never diverge, so
every second goes to generating and judging cases: in the run's own process
(``--in-process``), in one worker (the default) and in two (``--workers 2``).
It gives examples per second of search (the workers' start-up is not
counted), the speed-up over one worker, and the peak resident memory of the
run's processes together; then the default's speed against the in-process
path's, measured in the same run.  Goal (issue 7): at least 1.8x with 2
workers on 2 cores.

``--hour`` instead runs 2 workers for an hour and reports the peak resident
memory over the first 10 minutes and over the whole hour: goal, the same.
"""

from __future__ import annotations

import argparse
import os
from statistics import median
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from toolfuzz.engine.runner import execute
from toolfuzz.engine.settings import RunConfig
from toolfuzz.targets.registry import builtin_targets

HEADER = ("workers", "examples", "search s", "examples/s", "speed-up", "peak RSS MiB")
TARGETS = ("reference", "selftest-plain")
#: Worker processes of each row; 0 is the search in the run's own process (--in-process), 1 the default.
COUNTS = (0, 1, 2)


def run_once(workers: int, budget: float, on_sample: Callable[[float, int], None] = lambda t, rss: None) -> tuple:
    """One search, in ``workers`` processes (0: in this one); returns (examples, search seconds, peak RSS bytes of
    this process and its descendants)."""
    registry = builtin_targets(TARGETS)
    targets = [registry[name] for name in TARGETS]
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(targets=tuple(targets), specs=TARGETS, level="events", dialect="openai-chat",
                           profiles=None, tools=None, max_examples=10**9, budget=budget, seed=1, timeout=5.0,
                           workers=max(1, workers), in_process=workers == 0, state=Path(tmp) / "state")
        sampler = _Sampler(on_sample)
        sampler.start()
        try:
            stats = execute(config, lambda event: None)
        finally:
            sampler.stop()
    return stats.examples, budget, sampler.peak


def measure(budget: float = 30, counts: tuple[int, ...] = COUNTS, rounds: int = 1,
            on_row: Callable[[tuple[str, ...]], None] = lambda row: None) -> list[tuple[str, ...]]:
    """One row per worker count (see HEADER; the speed-up is over one worker), then, with 0 and 1 among the
    counts, the default's examples per second over the in-process path's; for this module's output and for
    ``python -m bench``.  With ``rounds``, the counts run in turn that many times and each figure is the
    median: on a shared machine, a neighbour's load then falls on every row alike."""
    seen: dict[int, list[tuple[int, float, int]]] = {n: [] for n in counts}
    for _ in range(rounds):
        for n in counts:
            seen[n].append(run_once(n, budget))
    rates = {n: median(examples / seconds for examples, seconds, _ in runs) for n, runs in seen.items()}
    base = rates.get(1) or rates[counts[0]]
    rows = [(_name(n), str(round(median(e for e, _, _ in runs))), f"{budget:.0f}", f"{rates[n]:.1f}",
             f"{rates[n] / base:.2f}x", f"{max(p for _, _, p in runs) / 2**20:.0f}") for n, runs in seen.items()]
    if 0 in seen and 1 in seen:
        # Each round's default against the same round's in-process search.
        ratios = [d[0] / i[0] for i, d in zip(seen[0], seen[1])]
        rows.append(("default / in-process", f"{median(ratios):.2f}x",
                     f"{min(ratios):.2f}x to {max(ratios):.2f}x over {rounds} round(s)"))
    for row in rows:
        on_row(row)
    return rows


def _name(workers: int) -> str:
    return "in-process" if workers == 0 else f"{workers} (default)" if workers == 1 else str(workers)


def rows(quick: bool = False) -> list[tuple[str, ...]]:
    """For ``python -m bench``: the worker-count rows, short when ``quick``."""
    return measure(5 if quick else 30)


def hour(minutes: float = 60, on_row: Callable[[tuple[str, ...]], None] = lambda row: None) -> list[tuple[str, ...]]:
    """Peak RSS of a 2-worker run at 10 minutes and at the end (``minutes``)."""
    first = min(10.0, minutes) * 60
    marks: dict[float, int | None] = {first: None}
    start = time.monotonic()

    def sample(t: float, peak: int) -> None:
        for mark in marks:
            if marks[mark] is None and t - start >= mark:
                marks[mark] = peak

    examples, seconds, peak = run_once(2, minutes * 60, sample)
    rows = [(f"{first / 60:g} min", f"{(marks[first] or peak) / 2**20:.0f}"),
            (f"{minutes:g} min", f"{peak / 2**20:.0f}"), ("examples", str(examples))]
    for row in rows:
        on_row(row)
    return rows


class _Sampler:
    """Samples the resident memory of this process and every descendant once a second; keeps the peak."""

    def __init__(self, on_sample: Callable[[float, int], None]) -> None:
        self.peak = 0
        self.on_sample = on_sample
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.peak = max(self.peak, tree_rss(os.getpid()))
            self.on_sample(time.monotonic(), self.peak)


def tree_rss(root: int) -> int:
    rss: dict[int, int] = {}
    for pid in tree_of(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return sum(rss.values())


def tree_of(root: int) -> set[int]:
    """``root`` and every process descended from it."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        children = [p for p, parent in parents.items() if parent == pid and p not in tree]
        tree.update(children)
        frontier.extend(children)
    return tree


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.workers", description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=30, help="seconds of search per row (default 30)")
    p.add_argument("--rounds", type=int, default=1, help="times each row runs, in turn; medians (default 1)")
    p.add_argument("--hour", action="store_true", help="a one-hour run: peak RSS at 10 and 60 minutes")
    p.add_argument("--minutes", type=float, default=60, help="length of the --hour run (default 60)")
    args = p.parse_args(argv)
    if args.hour:
        print("when      peak RSS MiB")
        hour(args.minutes, lambda row: print(f"{row[0]:<9} {row[1]}", flush=True))
        return
    widths = [max(len(h), 20 * (i == 0)) for i, h in enumerate(HEADER)]
    print("  ".join(h.rjust(w) for h, w in zip(HEADER, widths)))
    measure(args.budget, rounds=args.rounds,
            on_row=lambda row: print("  ".join(c.rjust(w) for c, w in zip(row, widths)), flush=True))


if __name__ == "__main__":
    main()
