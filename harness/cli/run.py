"""``toolfuzz run``: search for divergences, shrink each, write it as a fixture."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from toolfuzz.cli.arguments import add_dialect_option, add_target_options, positive_int, positive_seconds, \
    producer_dialects, targets_for
from toolfuzz.cli.arguments import add_wide_option, memory_size, severity_option
from toolfuzz.cli.streams import result, when_gone
from toolfuzz.corpus.agreement import ManifestError, imported_fixture, manifested
from toolfuzz.corpus.captures import capture_file, capture_paths
from toolfuzz.corpus.findings import FindingWriter
from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.engine.database import directory_of
from toolfuzz.engine.events import Event, Stats, StopReason
from toolfuzz.engine.runner import execute
from toolfuzz.engine.settings import RunConfig
from toolfuzz.engine.signals import stop_on_signals
from toolfuzz.engine.units import parse_shard
from toolfuzz.corpus.recordings import RecordingError
from toolfuzz.errors import Exit, UsageError, need_writable
from toolfuzz.outputs.console import Console
from toolfuzz.outputs.report import DEATH_KINDS, fixed_findings, write_report
from toolfuzz.outputs.run_results import junit, summary, table
from toolfuzz.outputs.tables import terminal_width
from toolfuzz.severity import Severity
from toolfuzz.state import DEFAULT, kept
from toolfuzz.strategies.profiles import DIALECT_PROFILES
from toolfuzz.vocabulary import Case

DEFAULT_BUDGET = 90.0
#: No bound on examples unless one is asked for: the budget bounds a run.
UNLIMITED = 10**15
DEFAULT_MEMORY_CAP = 2 * 2**30


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="generate streams, run targets side by side, reduce and save each root cause once",
        description="Generate streams whose outcome is known by construction, run every target on each, "
        "reduce each new root cause to the features it needs and save it as a fixture file; later divergences "
        "of a known root cause are counted as its hits. Exit 0 when nothing diverged, 1 when something "
        "did (also when stopped early: Ctrl-C, SIGTERM, or its output closed), 2 for a usage or input error, "
        "3 for a bug in toolfuzz, 130 when stopped early with nothing found. The summary goes to standard error "
        "when no one reads standard output.")
    add_target_options(p, "every installed built-in target")
    add_dialect_option(p, "the wire dialect to generate; only targets that support it run", text=True)
    p.add_argument("--profile", action="append", default=None, metavar="NAME",
                   help="restrict call shapes to this profile (repeatable; see toolfuzz profiles)")
    p.add_argument("--server", action="append", default=None, metavar="NAME", dest="servers",
                   help="draw only what this server is known to send, framing and endings included (repeatable; "
                   "see toolfuzz profiles --servers): a run that says 'a well-behaved OpenAI server' and means it")
    p.add_argument("--tools", metavar="FILE", help="tool schemas to generate from (default: the bundled corpus)")
    p.add_argument("--grow-from", action="append", default=None, metavar="PATH",
                   help="real captures (recordings, or folders of them as corpus import reads them, e.g. "
                   "findings/captures) that one case in four is grown from: the server's own events kept, each "
                   "call's arguments drawn anew and cut anew, the reads cut anew (repeatable)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="say each rewrite of the --tools schemas, not only their count by kind")
    p.add_argument("--max-examples", type=positive_int, default=None, metavar="N",
                   help="examples to generate at most (default: no bound; the budget ends the run)")
    p.add_argument("--budget", type=positive_seconds, default=DEFAULT_BUDGET, metavar="DURATION",
                   help=f"time to search, in seconds or like 30m, 8h (default {DEFAULT_BUDGET:g} s); reducing what "
                   "still waits may run past it, within the share of the run reducing may take and a short "
                   "last stretch for root causes met too late for that share")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="seed for a reproducible run (default: random)")
    p.add_argument("--findings", default=None, metavar="DIR",
                   help="where fixtures go (default STATE/findings, out of any tracked folder; printed at the start)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    add_wide_option(p, "the summary's tables and the run's lines")
    p.add_argument("--junit", metavar="FILE", help="also write the summary as JUnit XML")
    p.add_argument("--report", metavar="FILE.md|FILE.html",
                   help="also write a report for people: new and fixed findings, the matrix, examples and time")
    p.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="worker processes the targets run in, each with its own seed, restarted when a target kills "
                   "one: a crash, an exit, a hang or running out of memory is a finding and the run goes on "
                   "(default 1); see docs/nightly.md")
    p.add_argument("--in-process", action="store_true",
                   help="search in this process instead, faster but unprotected: a target that crashes, exits, hangs "
                   "in C or eats memory ends the run (no --workers, no --shard; --memory-cap does not apply)")
    p.add_argument("--memory-cap", type=memory_size, default=DEFAULT_MEMORY_CAP, metavar="SIZE",
                   help="address space of each worker process, e.g. 512M or 2G, 'none' for no cap; past it, a "
                   "target's allocation is a memory finding (default 2G)")
    p.add_argument("--database", metavar="PATH|redis://HOST:PORT/N|none", default=None,
                   help="where the seeds of failing cases are kept for the next run to draw first (default "
                   "STATE/db, or none with --seed)")
    p.add_argument("--state", default=str(DEFAULT), metavar="DIR",
                   help="the run's own files: the default database and the cases in flight (default .toolfuzz)")
    p.add_argument("--shard", metavar="I/N", help="run only shard I of N of the (target, profile) pairs")
    p.add_argument("--fail-on", type=severity_option, default=Severity.BUG, metavar="SEVERITY",
                   help="exit 1 when a root cause of this severity or a graver one is found: bug (the default), "
                   "robustness or note (docs/severity.md)")
    p.set_defaults(run=run)


def grown_from(paths: list[str], dialect: str) -> tuple[tuple[str, Case], ...]:
    """The captured responses of ``dialect`` under ``paths``, (origin, case), as ``corpus import`` reads them."""
    try:
        manifests = manifested(paths)
    except ManifestError as e:
        raise UsageError(str(e)) from None
    found = capture_paths(paths)
    out = []
    for path in found:
        try:
            captured = capture_file(path)
        except RecordingError:
            continue  # what corpus import names as unreadable is no capture to grow from
        entry = manifests.get(path.resolve())
        for capture in captured.captures:
            if capture.dialect == dialect:
                where = f", {capture.where}" if capture.where else ""
                out.append((f"{path} (response {capture.part + 1}{where})",
                            imported_fixture(capture, entry).case))
    if not out:
        raise UsageError(f"--grow-from: no capture of dialect {dialect} in {' '.join(paths)}")
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    _check_folders(args)
    targets = targets_for(args.target, args.level, args.dialect)
    # A producer run names its targets to each worker, the environments' included; it draws in their formats.
    specs = tuple(args.target) or (tuple(t.name for t in targets) if args.level == "producer" else ())
    dialects = producer_dialects(targets, args.dialect) if args.level == "producer" else ()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    config = RunConfig(
        targets=tuple(targets), specs=specs, level=args.level, dialect=args.dialect, dialects=dialects,
        profiles=tuple(args.profile) if args.profile else None, tools=args.tools, max_examples=args.max_examples or UNLIMITED,
        budget=args.budget, seed=seed, timeout=args.timeout, workers=args.workers, in_process=args.in_process,
        shard=parse_shard(args.shard) if args.shard else None, memory_cap=args.memory_cap or None,
        state=Path(args.state),
        database=args.database or (None if args.seed is not None else str(Path(args.state) / "db")),
        verbose=args.verbose, servers=tuple(args.servers) if args.servers else None,
        captured=grown_from(args.grow_from, args.dialect or "openai-chat") if args.grow_from else ())
    # Not ./findings by default: run inside a project (this one included), a run must not mix its output into
    # a tracked, curated folder unawares.
    root = Path(args.findings) if args.findings is not None else Path(args.state) / "findings"
    # Made now, ignoring itself in git: the database, the cases in flight and (by default) the findings go there.
    kept(args.state)
    # Every consumer of the run's events, in order: the writer first, so the terminal can say where a finding went.
    writer = FindingWriter(root)
    console = Console(sys.stderr, writer, terminal_width(sys.stderr, args.wide))

    def emit(event: Event) -> None:
        writer(event)
        console(event)

    try:
        with stop_on_signals() as stopping:
            # A reader gone from the terminal's lines (`2>&1 | head`) ends the run as Ctrl-C would.
            when_gone(sys.stderr, stopping.set)
            stats = execute(config, emit, stopping)
    except KeyboardInterrupt:
        # A second Ctrl-C: no summary, but what was written stays and the status still says it.
        print(f"toolfuzz run: interrupted again; {len(writer.saved)} finding(s) left in {root}/", file=sys.stderr)
        return status(writer.saved, None, args.fail_on)
    saved = writer.saved
    results = summary(targets, saved, stats, seed, {} if dialects else DIALECT_PROFILES[args.dialect])
    result(json.dumps(results, indent=2) + "\n" if args.json
           else table(targets, saved, stats, terminal_width(sys.stdout, args.wide)))
    if args.junit:
        write_atomic(args.junit, junit(targets, saved, stats, args.fail_on))
    if args.report:
        skip = set(stats.quarantined) | {f.target.name for f, _, _ in saved if f.divergence.kind in DEATH_KINDS}
        write_report(args.report, results, fixed_findings(root, targets, args.timeout, skip,
                                                          {str(p) for _, p, what in saved if what == "written"}))
    return status(saved, stats, args.fail_on)


def _check_folders(args: argparse.Namespace) -> None:
    """Every folder the run writes in can be written, before anything runs: one line and exit 2 if not."""
    need_writable(args.state, f"--state {args.state}")
    if args.findings is not None:
        need_writable(args.findings, f"--findings {args.findings}")
    # The default database is in the state folder, asked above; one named elsewhere is asked here, before the
    # state folder is made, so that a refused one leaves nothing behind.
    directory_of(args.database)
    for option, file in (("--junit", args.junit), ("--report", args.report)):
        if file:
            need_writable(Path(file).parent, f"{option} {file}")


def status(saved: list, stats: Stats | None, fail_on: Severity = Severity.BUG) -> Exit:
    """The run's exit status: 1 when it found something at ``fail_on`` or graver (the one place that decides
    what counts), else 130
    when it was stopped early (``stats`` None: without a summary), else 0."""
    if any(f.grade.severity.at_least(fail_on) for f, _, _ in saved):
        return Exit.FOUND
    return Exit.INTERRUPTED if stats is None or stats.stopped_by is StopReason.INTERRUPTED else Exit.OK
