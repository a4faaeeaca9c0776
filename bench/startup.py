"""Start-up of ``toolfuzz assemble``, and a large capture through the command line, against floors.

Run: ``python -m bench.startup [--rounds N] [--mb N] [--stream-rounds N]``

Everything here runs as a user runs it, a fresh process each time, so every
figure includes interpreter start-up and imports.

* Start-up: ``python -c pass``, ``python -c "import orjson"`` and
  ``toolfuzz assemble --help`` (through ``python -m toolfuzz`` and through the
  console script next to this interpreter, when installed), interleaved round
  by round, so that load elsewhere on a shared machine hits them alike.
  Goal (issue): ``toolfuzz assemble --help`` at most 4x ``python -c pass``,
  medians measured side by side.
* Stream: the realistic stream of :mod:`bench.reference` (28 MB by default)
  written to a file, ``toolfuzz assemble FILE > /dev/null`` against the floor
  of :func:`bench.reference.floor` (split lines, ``orjson.loads`` each data
  payload) run in its own ``python -c`` over the same file, back to back.
  Goal (issue): at most 2x the floor measured in the same run.

Figures are wall-clock medians; CPU (user + system of the child) is shown
beside them because it is steadier on a loaded machine.  Nothing here asserts
on time: it prints counts and ratios.
"""

from __future__ import annotations

import argparse
import inspect
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.reference import floor, realistic_stream

STARTUP_GOAL = 4.0
STREAM_GOAL = 2.0

# The floor's own code, run in a bare interpreter: importing bench.reference
# there would also import the reference assembler and charge its imports to the floor.
FLOOR_SCRIPT = "\n".join([
    "import sys",
    "import orjson",
    inspect.getsource(floor),
    "with open(sys.argv[1], 'rb') as f:",
    "    floor(f.read())",
])


def toolfuzz_commands() -> list[tuple[str, list[str]]]:
    """How a user starts toolfuzz: ``python -m toolfuzz``, and the console script when it is installed."""
    out = [("python -m toolfuzz", [sys.executable, "-m", "toolfuzz"])]
    script = Path(sys.executable).parent / ("toolfuzz.exe" if os.name == "nt" else "toolfuzz")
    if script.is_file() and os.access(script, os.X_OK):
        out.append(("toolfuzz (console script)", [str(script)]))
    return out


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds of the child (user + system) of one run, output discarded; it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}")
    return wall, cpu


def side_by_side(commands: list[tuple[str, list[str]]], rounds: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU times of each command over ``rounds`` rounds, one run of each per round.

    The order rotates from round to round, so none is always first after a
    pause or always last; one unmeasured warm-up round fills the page cache
    and writes any missing bytecode.
    """
    for _, argv in commands:
        timed(argv)
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name, _ in commands}
    for r in range(rounds):
        for name, argv in commands[r % len(commands):] + commands[:r % len(commands)]:
            wall, cpu = timed(argv)
            times[name][0].append(wall)
            times[name][1].append(cpu)
    return times


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def startup(rounds: int = 15) -> list[tuple[str, str]]:
    """Median start-up of each command and its ratio to ``python -c pass``."""
    commands = [("python -c pass", [sys.executable, "-c", "pass"]),
                ("python -c 'import orjson'", [sys.executable, "-c", "import orjson"])]
    commands += [(f"{name} assemble --help", argv + ["assemble", "--help"]) for name, argv in toolfuzz_commands()]
    times = side_by_side(commands, rounds)
    base_wall = statistics.median(times["python -c pass"][0])
    base_cpu = statistics.median(times["python -c pass"][1])
    rows = [("start-up rounds (interleaved)", f"{rounds} of each of {len(commands)} commands")]
    for name, _ in commands:
        wall, cpu = statistics.median(times[name][0]), statistics.median(times[name][1])
        value = f"{_ms(wall)} (cpu {_ms(cpu)})"
        if name != "python -c pass":
            value += f", {wall / base_wall:.2f}x python -c pass (cpu {cpu / base_cpu:.2f}x)"
            if "toolfuzz" in name:
                value += f" (goal <= {STARTUP_GOAL:g}x: {'met' if wall / base_wall <= STARTUP_GOAL else 'NOT met'})"
        rows.append((name, value))
    return rows


def stream(size_mb: float = 28.0, rounds: int = 5) -> list[tuple[str, str]]:
    """``toolfuzz assemble FILE`` on the realistic stream against the floor over the same file, both as processes."""
    wire = realistic_stream(int(size_mb * 1024 * 1024))
    mb = len(wire) / 1024 / 1024
    name, argv = toolfuzz_commands()[-1]
    with tempfile.TemporaryDirectory(prefix="toolfuzz-bench-") as folder:
        path = Path(folder) / "stream.sse"
        path.write_bytes(wire)
        events = wire.count(b"data: ")
        del wire
        commands = [("floor (python -c: split lines + orjson.loads)", [sys.executable, "-c", FLOOR_SCRIPT, str(path)]),
                    (f"{name} assemble FILE > /dev/null", argv + ["assemble", str(path)])]
        times = side_by_side(commands, rounds)
    (floor_name, _), (cli_name, _) = commands
    floor_wall, floor_cpu = (statistics.median(t) for t in times[floor_name])
    cli_wall, cli_cpu = (statistics.median(t) for t in times[cli_name])
    per_round = statistics.median(c / f for c, f in zip(times[cli_name][0], times[floor_name][0]))
    ratio = cli_wall / floor_wall
    return [
        ("stream", f"{mb:.1f} MB, {events} events, {rounds} rounds back to back"),
        (floor_name, f"{_ms(floor_wall)} (cpu {_ms(floor_cpu)}), {mb / floor_wall:.0f} MB/s"),
        (cli_name, f"{_ms(cli_wall)} (cpu {_ms(cli_cpu)}), {mb / cli_wall:.0f} MB/s"),
        ("assemble / floor",
         (f"{ratio:.2f}x (cpu {cli_cpu / floor_cpu:.2f}x, median of per-round ratios {per_round:.2f}x) "
          f"(goal <= {STREAM_GOAL:g}x: {'met' if ratio <= STREAM_GOAL else 'NOT met'})")),
    ]


def measure(rounds: int = 15, size_mb: float = 28.0, stream_rounds: int = 5) -> list[tuple[str, str]]:
    """The figures as (what, value) rows, for this module's output and for ``python -m bench``."""
    return startup(rounds) + stream(size_mb, stream_rounds)


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="start-up rounds of each command (default 15)")
    parser.add_argument("--mb", type=float, default=28.0, help="size of the stream in MB (default 28)")
    parser.add_argument("--stream-rounds", type=int, default=5, help="rounds of floor and assemble (default 5)")
    args = parser.parse_args(argv)
    rows = measure(args.rounds, args.mb, args.stream_rounds)
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return rows


if __name__ == "__main__":
    main()
