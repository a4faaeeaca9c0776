"""What a known time-out costs a search, three ways: its hits run under the whole limit; under the share of it
the search gives them (``toolfuzz.engine.search.KNOWN_TIMEOUT_SHARE``); and that, with the cap on the time they
may take (``KNOWN_TIMEOUT_CAP``), in a search beside the engine's other targets, as a night's run has them.

    .venv-sglang/bin/python -m bench.timeouts [--target sglang-pythonic] [--budget 150] [--seed 7]

Each search is one ``Search`` of ``--budget`` seconds, in this process.  A row says the cases the search drew,
those the target ran and sat out, the seconds it spent running out of time (``Stats.seconds_timed_out``) and
that as a share of the budget, and the cases the other targets ran.  The fourth row is the third without
the cap, so that what the cap gives the others is measured in the same run.  The first two searches draw
the same cases in the same order until the first time-out is known; after it the shorter limit lets the
second draw more.  A target searched alone never sits out (nothing would get its time), so the cap shows
only beside others.  Runs where the target's library is (a serving engine's parser: its environment).
"""

from __future__ import annotations

import argparse
import math

from toolfuzz.engine.search import KNOWN_TIMEOUT_CAP, Search, SearchSettings
from toolfuzz.engine.units import cases_for
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.targets.base import Target
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.specs import resolve


class _WholeLimit(Search):
    """The search as it was before a known time-out ran under a share of the limit."""

    def limit_for(self, target):  # noqa: ANN001, ANN201 - the same signature as Search's
        return self.settings.timeout


def engine_targets(target: Target) -> list[Target]:
    """The built-in targets of ``target``'s level whose names start as its does (``sglang-``), it first."""
    prefix = target.name.split("-")[0] + "-"
    others = [t for name, t in sorted(builtin_targets().items())
              if name.startswith(prefix) and t.level == target.level and name != target.name]
    return [target, *others]


def measure(target_name: str, budget: float, seed: int, timeout: float = 5.0) -> list[tuple[str, ...]]:
    """A row for each way: (how, cases, cases on the target, sat out, seconds timed out, share, cases on others)."""
    (target,) = resolve(target_name)
    beside = engine_targets(target)
    rows = []
    for how, kind, targets, cap in (("whole limit, alone", _WholeLimit, [target], math.inf),
                                    ("share of the limit, alone", Search, [target], math.inf),
                                    (f"share and cap, beside {len(beside) - 1}", Search, beside, None),
                                    (f"share, no cap, beside {len(beside) - 1}", Search, beside, math.inf)):
        dialects = tuple(dict.fromkeys(d for t in targets for d in t.dialects))
        producer = target.level == "producer"
        planner = cases_for(None, None, dialects[0], dialects=dialects if producer else ())
        settings = SearchSettings(max_examples=10**9, budget=budget, seed=seed, timeout=timeout,
                                  plain=PLAIN_FEATURES, known_timeout_cap=KNOWN_TIMEOUT_CAP if cap is None else cap)
        _, stats = kind(targets, planner, settings).run()
        timed_out = stats.seconds_timed_out.get(target.name, 0.0)
        others = sum(n for name, n in stats.by_target.items() if name != target.name)
        rows.append((how, str(stats.examples), str(stats.by_target.get(target.name, 0)),
                     str(stats.sat_out.get(target.name, 0)), f"{timed_out:.0f}", f"{timed_out / budget:.0%}",
                     str(others) if len(targets) > 1 else "-"))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sglang-pythonic")
    parser.add_argument("--budget", type=float, default=150.0, help="seconds each search (default 150)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rows = [("known time-outs", "cases", "on target", "sat out", "s timed out", "of budget", "on others"),
            *measure(args.target, args.budget, args.seed)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
