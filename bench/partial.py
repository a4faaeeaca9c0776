"""What parsing every prefix costs each partial JSON parser, against jiter in the same run.

    .venv/bin/python -m bench.partial [--sizes 10000,100000] [--fragment 16] [--sample 200]

A consumer that parses a call's arguments as they grow parses the whole text
so far at every fragment: quadratic in the text's length.  For an argument
text of each size (an object of short string, number and nested members,
written by ``json.dumps``), cut into fragments of ``--fragment`` characters,
each built-in partial target is timed on ``--sample`` of those prefixes,
evenly spaced, and the time for all of them is that times their number over
the sample.  The floor is jiter (``jiter-partial``) on the same prefixes; the
ratio is each parser's time over jiter's.  Needs the ``partial`` extra.
"""

from __future__ import annotations

import argparse
import json
import time
from random import Random

from toolfuzz.targets import adapters
from toolfuzz.targets.registry import REFERENCE_PARTIAL

FLOOR = "jiter-partial"


def argument_text(size: int, seed: int = 0) -> str:
    """A JSON object of about ``size`` characters, the members a tool's arguments hold."""
    rng = Random(seed)
    value: dict[str, object] = {}
    n = 0
    while len(json.dumps(value)) < size:
        n += 1
        kind = n % 4
        if kind == 0:
            value[f"note_{n}"] = "".join(rng.choice("abcdefgh é\"\\/") for _ in range(rng.randint(5, 60)))
        elif kind == 1:
            value[f"count_{n}"] = rng.randint(-10**6, 10**6)
        elif kind == 2:
            value[f"ratio_{n}"] = rng.random() * 1000
        else:
            value[f"item_{n}"] = {"on": rng.random() < 0.5, "tags": [f"t{rng.randint(0, 99)}" for _ in range(3)]}
    return json.dumps(value)


def timed(fn, prefixes: list[str]) -> float:
    start = time.perf_counter()
    for p in prefixes:
        try:
            fn(p)
        except Exception:  # noqa: BLE001 - a parser that raises on a prefix still took its time
            pass
    return time.perf_counter() - start


def measure(sizes: tuple[int, ...] = (10_000, 100_000), fragment: int = 16,
            sample: int = 200) -> list[tuple[str, int, int, float, float]]:
    """``(parser, text length, prefixes, seconds for all of them, ratio to jiter)`` for each installed parser."""
    targets = {t.name: t for t in adapters.installed() if t.level == "partial"}
    targets[REFERENCE_PARTIAL.name] = REFERENCE_PARTIAL
    if FLOOR not in targets:
        raise RuntimeError(f"{FLOOR} is not installed: pip install -e '.[partial]'")
    rows = []
    for size in sizes:
        text = argument_text(size)
        every = [text[:n] for n in range(fragment, len(text), fragment)] + [text]
        step = max(1, len(every) // sample)
        timed_prefixes = every[::step]
        scale = len(every) / len(timed_prefixes)
        floor = timed(targets[FLOOR].fn, timed_prefixes) * scale
        for name in [FLOOR, *sorted(n for n in targets if n != FLOOR)]:
            total = floor if name == FLOOR else timed(targets[name].fn, timed_prefixes) * scale
            rows.append((name, len(text), len(every), total, total / floor))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.partial", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="argument text sizes, in characters")
    parser.add_argument("--fragment", type=int, default=16, help="characters per fragment (default 16)")
    parser.add_argument("--sample", type=int, default=200, help="prefixes timed per parser and size (default 200)")
    args = parser.parse_args(argv)
    try:
        rows = measure(tuple(int(s) for s in args.sizes.split(",")), args.fragment, args.sample)
    except RuntimeError as e:
        parser.error(str(e))
    print(f"{'parser':32} {'size':>7} {'prefixes':>8} {'all prefixes':>13} {'per prefix':>11} {'x jiter':>8}")
    for name, length, prefixes, total, ratio in rows:
        print(f"{name:32} {length:>7} {prefixes:>8} {total:>12.2f}s {total / prefixes * 1e3:>9.3f}ms {ratio:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
