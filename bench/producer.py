"""What each serving engine's parser costs on the producer level's cases, against drawing them in the same run.

    .venv-sglang/bin/python -m bench.producer [--cases 300] [--seed 0]
    .venv-vllm/bin/python -m bench.producer [--cases 300] [--seed 0]

For each format, ``--cases`` cases are drawn as a producer run draws them
(``Planner(dialect="text:<format>")``: calls, content, token batches); the
floor is the time to draw them.  Each installed producer target of that
format then parses every case's batches and its whole text, in the sandbox a
run calls it in, with its time limit (``--timeout``: some parsers' regular
expressions take minutes on a few texts, which a run counts as ``timed_out``
and this counts apart), and the ratio is its time over the floor.  Runs where
the parsers are installed: each engine's in its own environment (``toolfuzz
env add sglang`` or ``vllm``, or ``.venv-sglang`` and ``.venv-vllm`` made by
``.ci/run``).
"""

from __future__ import annotations

import argparse
import time

from toolfuzz.judge.sandbox import observe
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets import adapters


def measure(cases: int = 300, seed: int = 0, timeout: float = 5.0) -> list[tuple[str, int, float, float, float, int]]:
    """``(target, cases, cases per second, seconds, ratio to drawing them, cases timed out)`` for each installed
    producer; the cases that ran out of time count in neither the rate nor the ratio."""
    targets = [t for t in adapters.installed() if t.level == "producer"]
    if not targets:
        raise RuntimeError("no producer target is installed here: run this with the python of a serving "
                           "engine's environment (toolfuzz env add sglang or vllm; .ci/run makes .venv-sglang "
                           "and .venv-vllm)")
    rows = []
    for target in targets:
        planner = Planner(dialect=target.dialects[0])
        seeds = [seed * 1_000_003 + n for n in range(cases)]
        drawn = [planner.draw(s) for s in seeds]  # once untimed: the first draws fill the strategies' caches
        start = time.perf_counter()
        for s in seeds:
            planner.draw(s)
        floor = time.perf_counter() - start
        spent, late = 0.0, 0
        for case in drawn:
            seen = observe(target, case, timeout=timeout)
            if seen.timed_out:
                late += 1
            else:
                spent += seen.seconds
        ran = cases - late
        rows.append((target.name, cases, ran / spent if spent else 0.0, spent, spent / floor * cases / max(ran, 1),
                     late))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.producer", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300, help="cases per format (default 300)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds a case may take (default 5)")
    args = parser.parse_args(argv)
    try:
        rows = measure(args.cases, args.seed, args.timeout)
    except RuntimeError as e:
        parser.error(str(e))
    print(f"{'target':28} {'cases':>6} {'cases/s':>8} {'seconds':>8} {'x drawing':>10} {'timed out':>10}")
    for name, n, rate, spent, ratio, late in rows:
        print(f"{name:28} {n:>6} {rate:>8.0f} {spent:>8.2f} {ratio:>10.1f} {late:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
