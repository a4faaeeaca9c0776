"""Cases per second, stage by stage and end to end, on the bundled corpus.

    .venv/bin/python -m bench.generation [--examples N] [--seeds N]

The stage figures and the "Hypothesis" rows are Hypothesis drawing from one
strategy inside a @given test (generate phase only, no database): what a
user's own ``@given`` test pays.  The "engine" rows are cases drawn from
seeds by a Planner, as ``toolfuzz run`` draws them (the last row is the
end-to-end figure).  Ratios against it show where the time goes; the goal
is 300 end-to-end cases per second per core.

Then how many examples of ``cases(profiles=["openai"])`` it takes for the
seed's two-call example to turn up, on each of ``--seeds`` seeds: the search
tests/strategies/test_cases.py makes on one seed only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from random import Random
from typing import Any

from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.strategies import (
    bundled_tools,
    call_defects,
    cases,
    finish_reasons,
    fragments,
    framings,
    interleavings,
    profile_sets,
    read_cuts,
    schema_values,
    serialisations,
    stream_endings,
    tool_arguments,
)
from toolfuzz.engine.seeding import seeded_by_strategies_only
from toolfuzz.strategies.arguments import validator
from toolfuzz.strategies.cases import Planner
from toolfuzz.strategies.framing import Payload
from toolfuzz.targets.reference import SSEDecoder


def rate(strategy: st.SearchStrategy[Any], n: int) -> float:
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(_: Any) -> None:
        pass

    start = time.perf_counter()
    run()
    return n / (time.perf_counter() - start)


def measure(n: int = 1000) -> list[tuple[str, float]]:
    """Cases per second for each stage, end to end last: (stage, rate) rows for ``python -m bench`` too."""
    tools = bundled_tools()
    text = json.dumps({"path": "src/main.py", "content": 'print("hé\\\\llo")\n' * 20})
    wire = b"".join(b'data: {"choices":[{"index":0,"delta":{"content":"h\xc3\xa9"}}]}\r\n\r\n' for _ in range(20))
    simple = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
              "required": ["a"]}
    from hypothesis_jsonschema import from_schema

    rows = [
        ("arguments: simple schema, fast path", schema_values(simple)),
        ("arguments: simple schema, hypothesis-jsonschema", from_schema(simple).filter(validator(simple).is_valid)),
        ("arguments: simple schema, closed, hypothesis-jsonschema",
         from_schema({**simple, "additionalProperties": False})),
        ("arguments: bundled corpus", st.sampled_from(tools).flatmap(tool_arguments)),
        # a fixed value has only a handful of serialisations, so draw values too
        ("serialisation (with its value)", st.sampled_from(tools).flatmap(tool_arguments).flatmap(serialisations)),
        ("fragments (1 KB text)", fragments(text)),
        ("interleaving (3 calls)", interleavings([6, 4, 8])),
        ("framing (10 payloads)", framings([Payload({"choices": [], "n": i}) for i in range(10)])),
        ("read cuts (1.5 KB wire)", read_cuts(wire)),
        ("call shapes: profile_sets()", profile_sets()),
        ("endings: stream_endings, finish_reasons, call_defects",
         st.tuples(stream_endings(), finish_reasons("tool_calls"), call_defects())),
        *[(f"end to end, Hypothesis: cases(dialect={d!r})", cases(dialect=d)) for d in DIALECTS if d != "openai-chat"],
        ("end to end, Hypothesis: cases()", cases()),
    ]
    out = [(name, rate(s, n)) for name, s in rows]
    out += [(f"end to end, engine: Planner(dialect={d!r}).draw", planner_rate(Planner(dialect=d), n))
            for d in DIALECTS if d != "openai-chat"]
    out.append(("end to end, engine: Planner().draw", planner_rate(Planner(), n)))
    return out


def planner_rate(planner: Planner, n: int) -> float:
    """Complete cases per second drawn from seeds the way ``toolfuzz run`` draws them."""
    for seed in range(100):
        planner.draw(seed)  # the pools of strategies drawn opaquely fill on first use
    start = time.perf_counter()
    for seed in range(1000, 1000 + 4 * n):
        planner.draw(seed)
    return 4 * n / (time.perf_counter() - start)


def _entry_indexes(case: Any) -> list[int]:
    out = []
    for event in SSEDecoder().feed(case.wire):
        if event.data.startswith(b"{"):
            for choice in json.loads(event.data).get("choices", []):
                for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                    out.append(entry["index"])
    return out


def seed_two_call_shape(case: Any) -> bool:
    """The seed's example (the shape tests/strategies/test_cases.py finds on one seed): two complete calls,
    0 and 1 interleaved as part of 0, 1's start, the rest of 0, the end of 1; one choice; [DONE]."""
    features = set(case.features)
    if "interleaved" not in features or "multi-choice" in features or "done" not in features:
        return False
    if [c.status for c in case.expected.calls] != ["complete", "complete"]:
        return False
    order = _entry_indexes(case)
    return order[:1] == [0] and 1 in order and 0 in order[order.index(1):] and order[-1] == 1


def seed_example(seeds: int = 10, limit: int = 30_000) -> list[int | None]:
    """Examples of ``cases(profiles=["openai"])`` until the seed's example turns up, on seeds 0..seeds-1
    (None: not within ``limit``).  The suite checks one seed; this is how soon it comes on others."""
    out: list[int | None] = []
    for k in range(seeds):
        seen = [0]

        def shaped(case: Any) -> bool:
            seen[0] += 1
            return seed_two_call_shape(case)

        try:
            with seeded_by_strategies_only():
                find(cases(profiles=["openai"]), shaped, random=Random(k),
                     settings=settings(max_examples=limit, database=None, deadline=None, phases=[Phase.generate],
                                       suppress_health_check=list(HealthCheck)))
            out.append(seen[0])
        except NoSuchExample:
            out.append(None)
    return out


def seed_example_summary(counts: list[int | None]) -> str:
    found = sorted(c for c in counts if c is not None)
    if not found:
        return f"not found on any of {len(counts)} seed(s)"
    return (f"found on {len(found)}/{len(counts)} seeds; examples until found: median "
            f"{statistics.median_low(found)}, most {found[-1]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=10, help="seeds to look for the seed's example on (0: skip)")
    args = parser.parse_args()
    results = measure(args.examples)
    end_to_end = results[-1][1]
    print(f"{'stage':<58} {'cases/s':>9} {'x end-to-end':>13}")
    for name, r in results:
        print(f"{name:<58} {r:9.0f} {r / end_to_end:13.1f}")
    print(f"\ngoal: 300 end-to-end cases/s per core, as toolfuzz run draws them; measured {end_to_end:.0f} "
          f"({end_to_end / 300:.0%} of goal)")
    if args.seeds:
        print(f"the seed's two-call example: {seed_example_summary(seed_example(args.seeds))}")


if __name__ == "__main__":
    main()
