"""``toolfuzz run``: search for divergences, shrink each, write it as a fixture."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

from hypothesis.errors import InvalidArgument

from toolfuzz.cli.arguments import add_dialect_option, add_target_options, positive_int, positive_seconds, \
    targets_for
from toolfuzz.cli.arguments import memory_size
from toolfuzz.errors import UsageError
from toolfuzz.engine.database import namespace_for, open_database
from toolfuzz.corpus.findings import save
from toolfuzz.outputs.report import DEATH_KINDS, add_run_figures, fixed_findings, write_report
from toolfuzz.engine.shards import parse_shard, units_for
from toolfuzz.engine.signals import stop_on_signals
from toolfuzz.engine.supervisor import Supervisor
from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.engine.search import Finding, SearchStats, search
from toolfuzz.targets.base import Target

DEFAULT_BUDGET = 90.0
DEFAULT_EXAMPLES = 2000
DEFAULT_MEMORY_CAP = 2 * 2**30


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="generate streams, run targets side by side, shrink and save every divergence",
        description="Generate streams whose outcome is known by construction, run every target on each, and "
        "shrink every distinct divergence into a fixture file. Exit 0 when nothing diverged, 1 when something "
        "did, 2 for a usage or input error.")
    add_target_options(p, "every installed built-in target")
    add_dialect_option(p, "the wire dialect to generate; only targets that support it run")
    p.add_argument("--profile", action="append", default=None, metavar="NAME",
                   help="restrict call shapes to this profile (repeatable; see toolfuzz profiles)")
    p.add_argument("--tools", metavar="FILE", help="tool schemas to generate from (default: the bundled corpus)")
    p.add_argument("--max-examples", type=positive_int, default=DEFAULT_EXAMPLES, metavar="N",
                   help=f"examples to generate at most (default {DEFAULT_EXAMPLES})")
    p.add_argument("--budget", type=positive_seconds, default=DEFAULT_BUDGET, metavar="DURATION",
                   help=f"time to search, in seconds or like 30m, 8h (default {DEFAULT_BUDGET:g} s); shrinking what "
                   "was found may run past it by a quarter at most, and keeps the smallest case seen by then")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="seed for a reproducible run (default: random)")
    p.add_argument("--findings", default="findings", metavar="DIR", help="where fixtures go (default findings/)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.add_argument("--junit", metavar="FILE", help="also write the summary as JUnit XML")
    p.add_argument("--report", metavar="FILE.md|FILE.html",
                   help="also write a report for people: new and fixed findings, the matrix, examples and time")
    p.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="worker processes, each with its own seed, restarted when a target kills one "
                   "(default 1: search in this process); see docs/nightly.md")
    p.add_argument("--memory-cap", type=memory_size, default=DEFAULT_MEMORY_CAP, metavar="SIZE",
                   help="address space of each worker process, e.g. 512M or 2G, 'none' for no cap (default 2G; "
                   "with --workers 2 or more)")
    p.add_argument("--database", metavar="PATH|redis://HOST:PORT/N|none", default=None,
                   help="where failing examples are kept for the next run to replay first (default "
                   "STATE/db, or none with --seed)")
    p.add_argument("--state", default=".toolfuzz", metavar="DIR",
                   help="the run's own files: the default database and the cases in flight (default .toolfuzz)")
    p.add_argument("--shard", metavar="I/N", help="run only shard I of N of the (target, profile) pairs")
    p.set_defaults(run=run)




def run(args: argparse.Namespace) -> int:
    targets = targets_for(args.target, args.level, args.dialect)
    # Imported here, not at the top: every command loads this module, and only
    # run needs the strategies (the harness is the one place that knows both).
    from toolfuzz import strategies
    from toolfuzz.strategies.profiles import DIALECT_PROFILES

    tools = strategies.resolve_tools(args.tools, lambda text: print(f"toolfuzz run: {text}", file=sys.stderr)) \
        if args.tools else None

    try:
        strategy = strategies.cases(tools=tools, profiles=args.profile, dialect=args.dialect)
    except InvalidArgument as e:
        raise UsageError(str(e)) from None
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    shard = parse_shard(args.shard) if args.shard else None
    database = args.database or (None if args.seed is not None else str(Path(args.state) / "db"))
    # Opened here, before anything runs, so that a store that cannot be reached is a usage error.
    store = open_database(database, namespace_for([t.name for t in targets], args.profile))
    root = Path(args.findings)
    progress = _Progress(sys.stderr, targets)
    progress.line(f"toolfuzz run: {len(targets)} target{'s' * (len(targets) != 1)}, seed {seed} "
                  f"(rerun with --seed {seed}), up to {args.max_examples} examples or {args.budget:g} s")
    saved: list[tuple[Finding, Path, str]] = []

    def on_finding(finding: Finding) -> None:
        path, what = save(root, finding)
        saved.append((finding, path, what))
        progress.finding(finding, path, what)

    with stop_on_signals() as stopping:
        if args.workers == 1 and shard is None:
            findings, stats = search(targets, strategy, max_examples=args.max_examples, budget=args.budget,
                                     seed=seed, timeout=args.timeout, on_finding=on_finding,
                                     on_progress=progress.update, plain=strategies.PLAIN_FEATURES,
                                     database=store,
                                     stop=stopping.is_set)
        else:
            supervisor = Supervisor(
                targets=targets, specs=args.target, level=args.level, tools=args.tools,
                dialect=args.dialect,
                units=units_for([t.name for t in targets], args.profile or list(DIALECT_PROFILES[args.dialect]), shard,
                                bool(args.profile)),
                max_examples=args.max_examples, budget=args.budget, seed=seed, timeout=args.timeout,
                memory_cap=args.memory_cap or None, workers=args.workers, state=Path(args.state),
                database=database, plain=strategies.PLAIN_FEATURES, on_finding=on_finding,
                on_note=lambda text: progress.line(f"note: {text}"), on_progress=progress.update)
            stopping.then(supervisor.stop)
            stats = supervisor.run()
            findings = [f for f, _, _ in saved]
    progress.done(stats)
    summary = _summary(targets, saved, stats, seed)
    add_run_figures(summary, stats, DIALECT_PROFILES[args.dialect])
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(_table(targets, saved, stats))
    if args.junit:
        write_atomic(args.junit, _junit(targets, saved, stats))
    if args.report:
        skip = set(getattr(stats, "quarantined", ())) | {f.target.name for f, _, _ in saved
                                                           if f.divergence.kind in DEATH_KINDS}
        write_report(args.report, summary, fixed_findings(root, targets, args.timeout, skip,
                                                          {str(p) for _, p, what in saved if what == "written"}))
    return 1 if findings else 0


class _Progress:
    """A live line on a terminal; plain lines, now and then, when stderr is a file or a pipe."""

    def __init__(self, stream, targets: list[Target]) -> None:
        self.stream = stream
        self.live = stream.isatty() and os.environ.get("TERM") != "dumb"
        self.last_plain = 0.0
        self.width = 0

    def line(self, text: str) -> None:
        self._clear()
        print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self.live and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0

    def update(self, stats: SearchStats) -> None:
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

    def finding(self, finding: Finding, path: Path, what: str) -> None:
        note = "" if what == "written" else " (a smaller fixture was already there)"
        self.line(f"diverges: {finding.signature}\n  {finding.divergence.detail}\n"
                  f"  -> {path}{note}\n  toolfuzz show {path}")

    def done(self, stats: SearchStats) -> None:
        self._clear()
        why = {"exhausted": "a round found nothing new", "examples": "examples spent", "budget": "time spent",
               "rounds": "round limit"}.get(stats.stopped_by, stats.stopped_by)
        print(f"done: {stats.examples} examples in {stats.rounds} round{'s' * (stats.rounds != 1)}, "
              f"{stats.elapsed:.1f} s ({why})", file=self.stream, flush=True)
        for message in stats.flaky:
            print(f"flaky: {message}", file=self.stream)


def _summary(targets: list[Target], saved, stats: SearchStats, seed: int) -> dict:
    return {
        "seed": seed,
        "examples": stats.examples,
        "seconds": round(stats.elapsed, 3),
        "stopped_by": stats.stopped_by,
        "targets": [{"name": t.name, "level": t.level, "version": t.version,
                     "seconds_in_target": round(stats.seconds_in.get(t.name, 0.0), 3),
                     "divergences": [{"signature": f.signature, "kind": f.divergence.kind,
                                      "detail": f.divergence.detail, "fixture": str(p), "file": what}
                                     for f, p, what in saved if f.target.name == t.name]}
                    for t in targets],
        "flaky": stats.flaky,
    }


def _table(targets: list[Target], saved, stats: SearchStats) -> str:
    rows = [("target", "level", "divergences", "kinds", "time in target")]
    for t in targets:
        mine = [f for f, _, _ in saved if f.target.name == t.name]
        kinds = ", ".join(sorted({f.divergence.kind for f in mine})) or "-"
        rows.append((t.name, t.level, str(len(mine)), kinds, f"{stats.seconds_in.get(t.name, 0.0):.2f} s"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    total = len(saved)
    lines.append("")
    lines.append(f"{total} divergence{'s' * (total != 1)} in {stats.examples} examples" if total
                 else f"no divergence in {stats.examples} examples")
    return "\n".join(lines) + "\n"


def _junit(targets: list[Target], saved, stats: SearchStats) -> str:
    suite = ET.Element("testsuite", name="toolfuzz run", tests=str(len(targets)),
                       failures=str(len({f.target.name for f, _, _ in saved})), time=f"{stats.elapsed:.3f}")
    for t in targets:
        case = ET.SubElement(suite, "testcase", classname="toolfuzz", name=t.name,
                             time=f"{stats.seconds_in.get(t.name, 0.0):.3f}")
        mine = [(f, p) for f, p, _ in saved if f.target.name == t.name]
        if mine:
            failure = ET.SubElement(case, "failure", message=f"{len(mine)} divergence(s)")
            failure.text = "\n".join(f"{f.signature}: {f.divergence.detail} ({p})" for f, p in mine)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
