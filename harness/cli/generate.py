"""``toolfuzz generate``: write generated cases as fixture files, deterministically for a seed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

from hypothesis import HealthCheck, Phase, given, seed, settings

from toolfuzz.cli.arguments import add_dialect_option, positive_int
from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import Fixture, dumps, write_atomic
from toolfuzz.vocabulary import Case, Tool
from toolfuzz.engine.seeding import seeded_by_strategies_only
from toolfuzz.strategies import cases, resolve_tools
from toolfuzz.strategies.profiles import DIALECT_PROFILES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate", help="write N generated cases as fixture files",
        description="Generate cases (tool calls streamed in the shapes real servers use, framed, cut into "
        "network reads, with the expected outcome) and write each as a fixture file. The same seed and "
        "options give the same files, byte for byte.")
    p.add_argument("--count", type=positive_int, default=100, metavar="N", help="how many cases (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the seed (default 0)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write NNNNN.json fixtures into")
    p.add_argument("--profile", action="append", metavar="NAME", dest="profiles",
                   help="restrict call shapes to this profile (repeatable; see `toolfuzz profiles`)")
    p.add_argument("--tools", metavar="TOOLS.json", help="tools to generate calls for (OpenAI tools array, "
                   "{name, parameters} list or MCP {name, inputSchema} list; a file or folder). "
                   "Default: the bundled corpus")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress or notes on stderr")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="say each rewrite of the --tools schemas, not only their count by kind")
    add_dialect_option(p, "the wire dialect to write the calls in")
    p.set_defaults(run=run)



def _say(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(f"toolfuzz generate: {text}", file=sys.stderr)



def generate(count: int, seed_value: int, tools: Sequence[Tool] | None = None,
             profiles: Iterable[str] | None = None,
             progress: Callable[[int], None] | None = None, dialect: str = "openai-chat") -> list[Case]:
    """``count`` cases, the same ones for the same seed and options."""
    strategy = cases(tools=tools, profiles=None if profiles is None else tuple(profiles), dialect=dialect)
    out: list[Case] = []

    # Hypothesis drives the drawing so that cases have its distribution and
    # shrink-friendly structure; a fixed seed, no database and the generate
    # phase alone make the sequence reproducible, and so does leaving out the
    # literals of whatever local modules are loaded (harness/engine/seeding.py).
    @seed(seed_value)
    @settings(max_examples=count, database=None, deadline=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(strategy)
    def collect(case: Case) -> None:
        if len(out) < count:
            out.append(case)
            if progress is not None:
                progress(len(out))

    with seeded_by_strategies_only():
        collect()
    return out


def run(args: argparse.Namespace) -> int:
    if args.profiles:
        unknown = [p for p in args.profiles if p not in DIALECT_PROFILES[args.dialect]]
        if unknown:
            raise UsageError(f"unknown profile {unknown[0]!r} for --dialect {args.dialect}; see `toolfuzz profiles`")
    tools = resolve_tools(args.tools, lambda text: _say(args, text), args.verbose)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: not a folder")
    show = not args.quiet and args.count >= 200 and sys.stderr.isatty() or (not args.quiet and args.count >= 1000)
    step = max(1, args.count // 20)

    def progress(n: int) -> None:
        if show and (n % step == 0 or n == args.count):
            print(f"toolfuzz generate: {n}/{args.count} cases", file=sys.stderr)

    made = generate(args.count, args.seed, tools, args.profiles, progress, args.dialect)
    if len(made) < args.count:
        _say(args, f"only {len(made)} distinct cases exist for these options")
    width = max(5, len(str(len(made))))
    for i, case in enumerate(made, 1):
        name = f"{i:0{width}d}"
        fixture = Fixture(case=case, name=f"generated-{args.seed}-{name}",
                          description=f"Generated case {i} of {args.count} for seed {args.seed}; "
                          f"exercises {', '.join(case.features)}.",
                          found={"by": "generate", "seed": args.seed, "number": i})
        try:
            write_atomic(out / f"{name}.json", dumps(fixture))
        except OSError as e:
            raise UsageError(f"{out}: cannot write: {e.strerror or e}") from None
    _say(args, f"wrote {len(made)} fixtures to {out}")
    return 0
