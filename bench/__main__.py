"""Every benchmark of the project, one table: ``python -m bench [--quick]``.

* reference: throughput of the reference assembler against the floor of
  splitting lines and ``orjson.loads`` (``bench.reference``);
* generation: cases per second of each strategy stage and end to end, and
  how many examples it takes for the seed's two-call example to turn up
  (``bench.generation``);
* selftest: examples and seconds until each self-test mutant is found, the
  signatures its search reports, and how small it is reduced; and a long search of the reference and the
  plain assembler, which must find nothing (``bench.selftest``);
* workers: runs per second with 1 and 2 workers (``bench.workers``, when
  present);
* startup: ``toolfuzz assemble --help`` against ``python -c pass``, and a
  large capture through ``toolfuzz assemble`` against the floor, each a fresh
  process as a user runs it (``bench.startup``);
* partial: each partial JSON parser's time to parse every prefix of a 10 KB
  and a 100 KB argument text, against jiter (``bench.partial``);
* producer: each serving engine's parser on the producer level's cases, against
  drawing them (``bench.producer``; where the parsers are installed, as in
  ``.venv-sglang`` and ``.venv-vllm``).

Each section is still its own ``python -m bench.<name>`` with more options.
A section that fails or is missing says so in its rows; the others still run.
``--quick`` runs each on a small size, for a check that everything works,
not for figures to quote.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

Row = tuple[str, str, str]

FULL = {"mb": 8.0, "examples": 1000, "seeds": 10, "budget": 10.0, "startup_rounds": 15, "startup_mb": 28.0,
        "quiet_examples": 1500, "partial_sizes": (10_000, 100_000), "partial_sample": 200,
        "producer_cases": 300}
QUICK = {"mb": 1.0, "examples": 100, "seeds": 1, "budget": 5.0, "startup_rounds": 3, "startup_mb": 1.0,
         "quiet_examples": 100, "partial_sizes": (2_000,), "partial_sample": 20,
         "producer_cases": 20}


def reference(size: dict[str, Any]) -> list[Row]:
    from bench.reference import measure
    return [("reference", what, value) for what, value in measure(size["mb"])]


def generation(size: dict[str, Any]) -> list[Row]:
    from bench.generation import measure, seed_example, seed_example_summary
    rates = measure(size["examples"])
    end_to_end = rates[-1][1]
    return [("generation", stage, f"{r:.0f} cases/s ({r / end_to_end:.1f}x end to end)") for stage, r in rates] + [
        ("generation", "goal: 300 end-to-end cases/s per core", f"{end_to_end / 300:.0%} of goal"),
        ("generation", "the seed's two-call example", seed_example_summary(seed_example(size["seeds"])))]


def selftest(size: dict[str, Any]) -> list[Row]:
    from bench.selftest import measure, passes_summary, quiet
    rows = []
    passes: dict[str, list[int]] = {}
    for mutant, mistake, found, examples, seconds, signatures, reduced, minimum, at_min in measure(
            size["seeds"], budget=size["budget"], passes=passes):
        rows.append(("selftest", f"{mutant} ({mistake})",
                     f"found {found}, median {examples} examples / {seconds} s, signatures {signatures} (median, "
                     f"most; goal 2), reduced to {reduced} (calls, reads), minimum {minimum}, at minimum {at_min}"))
    rows.append(("selftest", "reduction passes (probes, edits kept)", passes_summary(passes)))
    examples, seconds, found = quiet(size["quiet_examples"])
    rows.append(("selftest", "reference and plain (must never diverge)",
                 f"{examples} examples in {seconds} s, divergences: {found}"))
    return rows


def workers(size: dict[str, Any]) -> list[Row]:
    try:
        module = importlib.import_module("bench.workers")
    except ModuleNotFoundError as e:
        if e.name != "bench.workers":
            raise
        return [("workers", "runs per second with 1 and 2 workers", "not available (no bench/workers.py)")]
    fn = getattr(module, "rows", None) or getattr(module, "measure", None)
    if fn is None:
        return [("workers", "runs per second with 1 and 2 workers", "not available (bench.workers has no rows())")]
    quick = size is QUICK
    out = fn(quick=quick) if "quick" in inspect.signature(fn).parameters else fn()
    return [("workers", str(row[0]), ", ".join(map(str, row[1:]))) for row in out]


def startup(size: dict[str, Any]) -> list[Row]:
    from bench.startup import measure
    return [("startup", what, value) for what, value in
            measure(size["startup_rounds"], size["startup_mb"], stream_rounds=5 if size is FULL else 2)]


def partial(size: dict[str, Any]) -> list[Row]:
    from bench.partial import measure
    return [("partial", f"{name}, every prefix of {length} characters ({prefixes} prefixes)",
             f"{total:.2f} s ({ratio:.1f}x jiter)")
            for name, length, prefixes, total, ratio in measure(size["partial_sizes"], sample=size["partial_sample"])]


def producer(size: dict[str, Any]) -> list[Row]:
    from bench.producer import measure
    try:
        rows = measure(size["producer_cases"])
    except RuntimeError as e:  # the engines' parsers live in environments of their own
        return [("producer", "each serving engine's parser on the producer level's cases", f"not available: {e}")]
    return [("producer", name, f"{rate:.0f} cases/s ({ratio:.1f}x drawing them)"
             + (f", {late} of {n} timed out" if late else "")) for name, n, rate, _, ratio, late in rows]


SECTIONS: dict[str, Callable[[dict[str, Any]], list[Row]]] = {
    "reference": reference, "generation": generation, "selftest": selftest, "workers": workers,
    "startup": startup, "partial": partial, "producer": producer}


def table(rows: list[Row]) -> str:
    header = ("benchmark", "measure", "value")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(2)]
    lines = [f"{header[0]:<{widths[0]}}  {header[1]:<{widths[1]}}  {header[2]}",
             f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * 5}"]
    lines.extend(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in rows)
    return "\n".join(lines) + "\n"


#: The part of a Markdown page that ``--markdown`` rewrites; the rest of the page is prose about the figures.
BEGIN, END = "<!-- python -m bench --markdown: begin -->", "<!-- python -m bench --markdown: end -->"


def markdown(rows: list[Row], heading: str) -> str:
    """The figures as a Markdown table under one line saying where and when they were measured."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    lines = [heading, "", "| benchmark | measure | value |", "|---|---|---|"]
    lines.extend(f"| {a} | {cell(b)} | {cell(c)} |" for a, b, c in rows)
    return "\n".join(lines)


def checked_page(path: str) -> str:
    """The page at ``path``, which must hold a BEGIN ... END part: said before anything is measured."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"python -m bench: --markdown {path}: {e.strerror}")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"python -m bench: --markdown {path}: the page has no {BEGIN} ... {END} part to rewrite")
    return text


def write_markdown(path: str, section: str) -> None:
    """Put ``section`` between BEGIN and END in the page at ``path``, atomically, the page otherwise as it was.

    Figures are never typed by hand into the page: what it quotes is what the last run printed."""
    text = checked_page(path)
    new = text[:text.find(BEGIN) + len(BEGIN)] + "\n" + section + "\n" + text[text.find(END):]
    page = Path(path)
    fd, tmp = tempfile.mkstemp(dir=page.parent, prefix=f".{page.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(new)
    os.replace(tmp, page)


def _where() -> str:
    """The commit measured, marked when the tree differs from it, and the machine's cores."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"{os.cpu_count()} cores, outside a git checkout"
    return f"commit {commit}{' with changes' if dirty else ''}, {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: checks every benchmark runs, quickly")
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS), help="run only these (repeatable)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the figures into FILE's generated part "
                        "(docs/benchmarks.md)")
    args = parser.parse_args(argv)
    if args.markdown:
        checked_page(args.markdown)  # a page that cannot take the figures is said before they are measured
    size = QUICK if args.quick else FULL
    rows: list[Row] = []
    started = time.monotonic()
    for name, section in SECTIONS.items():
        if args.only and name not in args.only:
            continue
        print(f"running {name}...", file=sys.stderr, flush=True)
        begun = time.monotonic()
        try:
            rows.extend(section(size))
        except Exception as e:  # noqa: BLE001 - one broken benchmark must not hide the others' figures
            rows.append((name, "failed", f"{type(e).__name__}: {e}"[:200]))
        rows.append((name, "wall time of this benchmark", f"{time.monotonic() - begun:.0f} s"))
    title = (f"python -m bench{' --quick' if args.quick else ''}: Python {platform.python_version()}, "
             f"{time.monotonic() - started:.0f} s in all")
    print(title)
    print()
    sys.stdout.write(table(rows))
    if args.markdown:
        write_markdown(args.markdown, markdown(rows, f"`{title}`, {_where()}, {time.strftime('%Y-%m-%d')}:"))
    return 1 if any(r[1] == "failed" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
