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
import time

import orjson

from targets.reference import Assembler

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


def best_of(fn, *args, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=8.0, help="size of the large stream in MB (default 8)")
    args = parser.parse_args(argv)
    wire = realistic_stream(int(args.mb * 1024 * 1024))
    mb = len(wire) / 1024 / 1024
    reads = cut(wire, 64 * 1024)
    t_floor = t_ref = t_events = float("inf")
    for _ in range(5):
        # Alternate, so that a burst of load elsewhere on the machine hits both sides of a ratio.
        t_floor = min(t_floor, best_of(floor, wire, repeat=1))
        t_ref = min(t_ref, best_of(reference, reads, repeat=1))
        t_events = min(t_events, best_of(reference, reads, True, repeat=1))
    small = wire[: 1024 * 1024]
    small = small[: small.rindex(b"\n\n") + 2]
    t_small_64k = best_of(reference, cut(small, 64 * 1024))
    t_small_1 = best_of(reference, cut(small, 1), repeat=3)
    sizes = []
    for k in (1, 2, 4):
        part = realistic_stream(int(args.mb * 1024 * 1024 * k / 4), seed=k)
        sizes.append((len(part), best_of(reference, cut(part, 64 * 1024), repeat=3)))
    per_mb = [t / (n / 1024 / 1024) for n, t in sizes]
    # One call whose whole arguments come in a single multi-MB line, read 1 KiB at a time:
    # a decoder that re-scans or re-copies its pending line goes quadratic here.
    big = b"data: " + orjson.dumps({**ENVELOPE, "choices": [{"index": 0, "finish_reason": "tool_calls", "delta": {
        "tool_calls": [{"index": 0, "id": "call_big", "function": {"name": "write_file",
                                                                    "arguments": orjson.dumps({"text": "x" * (3 * 1024 * 1024)}).decode()}}]}}]}) + b"\n\n"
    t_big_whole = best_of(reference, [big], repeat=3)
    t_big_1k = best_of(reference, cut(big, 1024), repeat=3)
    rows = [
        ("stream", f"{mb:.1f} MB, {wire.count(b'data: ')} events"),
        ("floor (split lines + orjson.loads)", f"{t_floor * 1000:.0f} ms, {mb / t_floor:.0f} MB/s"),
        ("reference, 64 KiB reads", f"{t_ref * 1000:.0f} ms, {mb / t_ref:.0f} MB/s"),
        ("reference / floor", f"{t_ref / t_floor:.2f}x (goal < 2x)"),
        ("reference with events / floor", f"{t_events / t_floor:.2f}x (an event object per fragment)"),
        ("1-byte reads / 64 KiB reads (1 MB)", f"{t_small_1 / t_small_64k:.1f}x (goal < 20x)"),
        ("linearity: s/MB at 1x, 2x, 4x", ", ".join(f"{x:.3f}" for x in per_mb)
         + f" (4x/1x = {per_mb[2] / per_mb[0]:.2f}, goal ~1)"),
        (f"one {len(big) / 1024 / 1024:.1f} MB line: 1 KiB reads / one read",
         f"{t_big_1k / t_big_whole:.1f}x ({t_big_1k * 1000:.0f} ms vs {t_big_whole * 1000:.0f} ms)"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return rows


if __name__ == "__main__":
    main()
