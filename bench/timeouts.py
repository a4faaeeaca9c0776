"""What a known time-out costs a search: one target searched with its known time-outs run under the whole
limit, then under the share the search gives them (``toolfuzz.engine.search.KNOWN_TIMEOUT_SHARE``).

    .venv-sglang/bin/python -m bench.timeouts [--target sglang-pythonic] [--budget 150] [--seed 7]

Each search is one ``Search`` of ``--budget`` seconds, in this process, on the target's own level and
dialect; the row says the cases it ran, the seconds the target spent, of them the seconds it spent
running out of time (``Stats.seconds_timed_out``), and that as a share of the budget.  The two searches
draw the same cases in the same order until the first time-out is known; after it the shorter limit lets
the second draw more.  Runs where the target's library is (a serving engine's parser: its environment).
"""

from __future__ import annotations

import argparse

from toolfuzz.engine.search import Search, SearchSettings
from toolfuzz.engine.units import cases_for
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.targets.specs import resolve


class _WholeLimit(Search):
    """The search as it was before a known time-out ran under a share of the limit."""

    def limit_for(self, target):  # noqa: ANN001, ANN201 - the same signature as Search's
        return self.settings.timeout


def measure(target_name: str, budget: float, seed: int, timeout: float = 5.0) -> list[tuple[str, ...]]:
    """A row for each way of running known time-outs: (how, cases, seconds in target, seconds timed out, share)."""
    (target,) = resolve(target_name)
    dialect = target.dialects[0]
    rows = []
    for how, kind in (("whole limit", _WholeLimit), ("share of the limit", Search)):
        planner = cases_for(None, None, dialect, dialects=(dialect,) if target.level == "producer" else ())
        settings = SearchSettings(max_examples=10**9, budget=budget, seed=seed, timeout=timeout,
                                  plain=PLAIN_FEATURES)
        _, stats = kind([target], planner, settings).run()
        timed_out = stats.seconds_timed_out.get(target.name, 0.0)
        rows.append((how, str(stats.examples), f"{stats.seconds_in.get(target.name, 0.0):.0f}", f"{timed_out:.0f}",
                     f"{timed_out / budget:.0%}"))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sglang-pythonic")
    parser.add_argument("--budget", type=float, default=150.0, help="seconds each search (default 150)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rows = [("known time-outs under", "cases", "s in target", "s timed out", "of budget"),
            *measure(args.target, args.budget, args.seed)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
