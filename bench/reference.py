"""Throughput of the reference assembler against the floor of merely parsing the same stream.

Run: ``python -m bench.reference [--mb N]``

The floor is the least any assembler must do with these bytes: split them
into lines and ``orjson.loads`` each data payload.  Figures are ratios to the
floor measured in this run, so they mean the same on a slow or a fast machine.
Goals (issue 2): under 2x the floor with 64 KiB reads; 1-byte reads within
20x of 64 KiB reads; time linear in stream size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import orjson

from toolfuzz.targets.reference import Assembler

ENVELOPE = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1767225600,
            "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_bench"}


def realistic_stream(target_bytes: int, seed: int = 0) -> bytes:
    """Parallel calls, two choices, token-sized fragments, as a large model run sends them."""
    rng = random.Random(seed)
    words = ["path", "src/", "main", ".py", "\\n", " the", " value", "é", "😀", "\\\"", "{", "}", " 42", ",", ":"]
    out: list[bytes] = []
    size = 0
    call = 0
    while size < target_bytes:
        for choice in (0, 1):
            entry = {"index": call % 4, "id": f"call_{call:08d}", "type": "function",
                     "function": {"name": "write_file", "arguments": ""}}
            out.append(_event(choice, {"tool_calls": [entry]}))
            for _ in range(40):
                frag = "".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                out.append(_event(choice, {"tool_calls": [{"index": call % 4, "function": {"arguments": frag}}]}))
            size += sum(len(b) for b in out[-41:])
        call += 1
    for choice in (0, 1):
        out.append(b"data: " + orjson.dumps({**ENVELOPE, "choices": [
            {"index": choice, "delta": {}, "logprobs": None, "finish_reason": "tool_calls"}]}) + b"\n\n")
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def _event(choice: int, delta: dict) -> bytes:
    body = {**ENVELOPE, "choices": [{"index": choice, "delta": delta, "logprobs": None, "finish_reason": None}]}
    return b"data: " + orjson.dumps(body) + b"\n\n"


def floor(wire: bytes) -> None:
    for line in wire.split(b"\n"):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            orjson.loads(line[6:])


def cut(wire: bytes, read_size: int) -> list[bytes]:
    # The network layer makes the reads; slicing is not the assembler's cost.
    return [wire[i:i + read_size] for i in range(0, len(wire), read_size)]


def reference(reads: list[bytes], events: bool = False) -> None:
    a = Assembler(events=events)
    feed = a.feed
    for read in reads:
        feed(read)
    a.close()
    assert a.outcome is not None and a.outcome.error is None


def timed_pair(a: tuple, b: tuple, rounds: int) -> tuple[tuple[float, float], float]:
    """Best CPU times of ``a`` and ``b`` (each a (fn, args)), and the median of b/a over rounds run back to back."""
    best = [float("inf"), float("inf")]
    ratios = []
    for _ in range(rounds):
        spent = []
        for i, (fn, args) in enumerate((a, b)):
            t = time.process_time()
            fn(*args)
            spent.append(time.process_time() - t)
            best[i] = min(best[i], spent[-1])
        ratios.append(spent[1] / spent[0])
    return (best[0], best[1]), statistics.median(ratios)


def measure(size_mb: float = 8.0) -> list[tuple[str, str]]:
    """The figures as (what, value) rows, for this module's output and for ``python -m bench``."""
    wire = realistic_stream(int(size_mb * 1024 * 1024))
    mb = len(wire) / 1024 / 1024
    reads = cut(wire, 64 * 1024)
    # Each ratio is the median over rounds of (B / A) with A and B timed back to
    # back, so that a burst of load elsewhere on a shared machine hits a round's
    # two sides alike and drops out of the median.
    (t_floor, t_ref), r_ref = timed_pair((floor, (wire,)), (reference, (reads,)), rounds=9)
    (_, t_events), r_events = timed_pair((floor, (wire,)), (reference, (reads, True)), rounds=5)
    small = wire[: 1024 * 1024]
    small = small[: small.rindex(b"\n\n") + 2]
    _, r_bytewise = timed_pair((reference, (cut(small, 64 * 1024),)), (reference, (cut(small, 1),)), rounds=5)
    parts = [realistic_stream(int(size_mb * 1024 * 1024 * k / 4), seed=k) for k in (1, 4)]
    (t_1x, t_4x), r_linear = timed_pair((reference, (cut(parts[0], 64 * 1024),)),
                                        (reference, (cut(parts[1], 64 * 1024),)), rounds=5)
    r_linear *= len(parts[0]) / len(parts[1])
    # One call whose whole arguments come in a single multi-MB line, read 1 KiB at a time:
    # a decoder that re-scans or re-copies its pending line goes quadratic here.
    big = b"data: " + orjson.dumps({**ENVELOPE, "choices": [{"index": 0, "finish_reason": "tool_calls", "delta": {
        "tool_calls": [{"index": 0, "id": "call_big", "function": {"name": "write_file",
                                                                    "arguments": orjson.dumps({"text": "x" * (3 * 1024 * 1024)}).decode()}}]}}]}) + b"\n\n"
    (t_big_whole, t_big_1k), r_big = timed_pair((reference, ([big],)), (reference, (cut(big, 1024),)), rounds=5)
    rows = [
        ("stream", f"{mb:.1f} MB, {wire.count(b'data: ')} events"),
        ("floor (split lines + orjson.loads)", f"{t_floor * 1000:.0f} ms, {mb / t_floor:.0f} MB/s"),
        ("reference, 64 KiB reads", f"{t_ref * 1000:.0f} ms, {mb / t_ref:.0f} MB/s"),
        ("reference / floor", f"{r_ref:.2f}x (goal < 2x)"),
        ("reference with events / floor", f"{r_events:.2f}x (an event object per fragment)"),
        ("1-byte reads / 64 KiB reads (1 MB)", f"{r_bytewise:.1f}x (goal < 20x)"),
        ("time per MB, 4x stream / 1x stream", f"{r_linear:.2f} (goal ~1: linear)"),
        (f"one {len(big) / 1024 / 1024:.1f} MB line: 1 KiB reads / one read",
         f"{r_big:.1f}x ({t_big_1k * 1000:.0f} ms vs {t_big_whole * 1000:.0f} ms)"),
    ]
    return rows


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=8.0, help="size of the large stream in MB (default 8)")
    args = parser.parse_args(argv)
    rows = measure(args.mb)
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return rows


if __name__ == "__main__":
    main()
