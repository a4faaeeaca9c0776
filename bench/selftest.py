"""How fast the harness finds each self-test mutant, how many signatures it reports, how small it reduces it.

Run: ``python -m bench.selftest [--seeds N] [--mutant NAME] [--budget S] [--quiet-examples N]``

For each mutant and seed, one search of ``--budget`` seconds on that mutant
alone, under every profile of its dialect, on the bundled corpus, as
``toolfuzz run`` searches: the examples and seconds until the first
divergence, and the signatures it reports (the goal: at most 2 a mutant).
Then, from the same seed, a search for the mutant's known mistake with
every kind a finding of its own (in a run it may be a variant of another
kind's root cause): the size of its smallest finding against its known
minimum (calls, reads), reached on how many seeds (the goal: all).  Then
the reference and the plain assembler searched together for
``--quiet-examples``: they must never diverge.

tests/targets/selftest/test_mutants.py checks the minimum on one seed, on
the cases of one small tool, and the correct targets on 1500 examples:
these are the long searches the suite leaves to this benchmark.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Callable

from toolfuzz import strategies
from toolfuzz.engine.search import search, search_for_kind
from toolfuzz.strategies.cases import Planner
from toolfuzz.engine.reduction import PASSES
from toolfuzz.targets.registry import REFERENCE
from toolfuzz.targets.selftest import PLAIN, SELFTEST


HEADER = ("mutant", "mistake", "found", "median examples", "median s", "signatures (median, most)",
          "reduced (calls, reads)", "minimum", "at minimum")


def measure(seeds: int = 10, names: list[str] | None = None,
            on_row: Callable[[tuple[str, ...]], None] = lambda row: None,
            budget: float = 60, passes: dict[str, list[int]] | None = None) -> list[tuple[str, ...]]:
    """One row per mutant (see HEADER), for this module's output and for ``python -m bench``; ``passes``, when
    given, gets each reduction pass's probes and kept edits over every search, as ``[probes, kept]``."""
    plain = strategies.PLAIN_FEATURES
    mutants = [m for m in SELFTEST if not names or m.name in names or m.name[9:] in names]
    rows = []
    for mutant in mutants:
        # A mutant of another dialect only shows its mistake on that dialect's streams.
        dialect = "openai-chat" if "openai-chat" in mutant.dialects else mutant.dialects[0]
        planner = Planner(dialect=dialect)
        examples, seconds, sizes, signatures = [], [], [], []
        for seed in range(seeds):
            found, stats = search([mutant], planner, seed=seed * 100, max_examples=10**9, budget=budget, plain=plain)
            if passes is not None:
                for name, probes in stats.pass_probes.items():
                    seen = passes.setdefault(name, [0, 0])
                    seen[0] += probes
                    seen[1] += stats.pass_kept.get(name, 0)
            if stats.first_found_after is not None:
                examples.append(stats.first_found_after[0])
                seconds.append(stats.first_found_after[1])
            signatures.append(len(found))
            mine, _ = search_for_kind(mutant, mutant.mistake, planner, seed=seed * 100, attempts=1,
                                      max_examples=10**9, budget=budget, plain=plain)
            if mine:
                sizes.append(min((len(f.case.expected.calls), len(f.case.reads)) for f in mine))
        minimum = (mutant.extra["minimal"]["calls"], mutant.extra["minimal"]["reads"])
        at_min = sum(1 for s in sizes if s[0] == minimum[0] and s[1] <= minimum[1])
        rows.append((mutant.name[len("selftest-"):], mutant.mistake, f"{len(sizes)}/{seeds}",
                     f"{statistics.median(examples):.0f}" if examples else "-",
                     f"{statistics.median(seconds):.2f}" if seconds else "-",
                     f"{statistics.median_low(signatures)}, {max(signatures)}",
                     f"{statistics.median_low(sizes)}" if sizes else "-", f"{minimum}", f"{at_min}/{seeds}"))
        on_row(rows[-1])
    return rows


def passes_summary(passes: dict[str, list[int]]) -> str:
    """Each reduction pass's probes and the edits it kept, in the order they run: which earn their probes."""
    return "; ".join(f"{name} {passes[name][0]} probes, {passes[name][1]} kept" for name in PASSES if name in passes)


def quiet(examples: int = 1500, seed: int = 0) -> tuple[str, ...]:
    """The reference and the plain assembler searched together: (examples, seconds, divergences found)."""
    # A budget far past the search's time: it ends by its examples, whatever the machine.
    findings, stats = search([REFERENCE, PLAIN], Planner(), max_examples=examples, budget=3600,
                             seed=seed, plain=strategies.PLAIN_FEATURES)
    return (f"{stats.examples}", f"{stats.elapsed:.1f}", ", ".join(f.signature for f in findings) or "none")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=float, default=60, help="seconds a search (default 60)")
    parser.add_argument("--mutant", action="append", help="only these (repeatable)")
    parser.add_argument("--quiet-examples", type=int, default=1500,
                        help="examples to search the correct targets for (0: skip)")
    args = parser.parse_args(argv)
    header = HEADER
    passes: dict[str, list[int]] = {}
    rows = [header, *measure(args.seeds, args.mutant, lambda row: print(" | ".join(row), flush=True), args.budget,
                             passes)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    print()
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print(f"\nreduction passes (probes, edits kept): {passes_summary(passes)}")
    if args.quiet_examples:
        examples, seconds, found = quiet(args.quiet_examples)
        print(f"\nreference and plain: {examples} examples in {seconds} s, divergences: {found}")


if __name__ == "__main__":
    main()
