"""What a run over every target of one environment holds in memory, against one import of their library.

Run: ``python -m bench.served --python .venv-vllm/bin/python --environment vllm [--budget 60] [--workers 2]``

The environment's targets (those its built-in recipe serves, ``vllm-*@vllm``) run over the subprocess protocol
as a run serves them: one ``toolfuzz serve`` process per environment in each worker.  The floor, measured first
in the same run, is one such process serving one target: one import of the engine.  The row gives the run's
peak resident memory (every process of it: the run, its workers, what they serve), the most ``toolfuzz serve``
processes alive at once, and the peak over the floor.  Issue 40's goal: the ten vLLM targets with 2 workers
under 2 GB, where one process per target took about 5 GB a worker.

The environment is the python given, as ``toolfuzz env add`` would leave it, under a temporary
``$TOOLFUZZ_ENVS``: nothing is written into its folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from bench.workers import tree_rss, tree_of
from toolfuzz.targets import adapters, environments
from toolfuzz.targets.command import command_targets

HEADER = ("targets", "workers", "cases", "serve processes", "peak RSS MiB", "one import MiB", "ratio")


def environment_of(python: str, name: str, root: Path) -> environments.Environment:
    """An environment record under ``root`` whose python is ``python``."""
    folder = root / name
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text(f'#!/bin/sh\nexec {python} "$@"\n')
    (folder / "bin" / "python").chmod(0o755)
    (folder / "toolfuzz-env.json").write_text(json.dumps({"name": name, "requirements": [], "toolfuzz": ""}))
    return environments.Environment(name, folder, (), "")


def served_names(name: str) -> list[str]:
    """The producer targets the built-in adapters serve from the environment ``name``."""
    return [t for a in adapters.KNOWN if a.environment == name for t in a.names]


def one_import(env: environments.Environment, target: str) -> int:
    """The resident memory of one process serving ``target`` from ``env``, once it has said hello."""
    (served,) = env.served([target], level="producer")
    child = served.extra["child"]
    try:
        return tree_rss(child.pid)
    finally:
        child.stop()


def measure(python: str, name: str, budget: float = 60, workers: int = 2) -> tuple[str, ...]:
    names = served_names(name)
    if not names:
        raise SystemExit(f"no built-in target is served from an environment named {name!r}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "envs"
        env = environment_of(python, name, root)
        previous = os.environ.get("TOOLFUZZ_ENVS")
        os.environ["TOOLFUZZ_ENVS"] = str(root)
        try:
            floor = one_import(env, names[0])
        finally:
            if previous is None:
                os.environ.pop("TOOLFUZZ_ENVS")
            else:
                os.environ["TOOLFUZZ_ENVS"] = previous
        argv = [sys.executable, "-m", "toolfuzz", "run", "--level", "producer", "--workers", str(workers),
                "--budget", str(budget), "--seed", "1", "--database", "none", "--json",
                "--findings", str(Path(tmp) / "found"), "--state", str(Path(tmp) / "state"),
                *(a for t in names for a in ("--target", f"{t}@{name}"))]
        run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "TOOLFUZZ_ENVS": str(root)})
        peak, most = [0], [0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(1.0):
                peak[0] = max(peak[0], tree_rss(run.pid))
                most[0] = max(most[0], _serving(run.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out, _ = run.communicate()
        done.set()
        sampler.join()
    summary = json.loads(out) if out.strip() else {}
    cases = summary.get("examples", 0)
    return (str(len(names)), str(workers), str(cases), str(most[0]), f"{peak[0] / 2**20:.0f}", f"{floor / 2**20:.0f}",
            f"{peak[0] / floor:.1f}x")


def _serving(root: int) -> int:
    """How many ``toolfuzz serve`` processes run under ``root``."""
    count = 0
    for pid in tree_of(root):
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        count += b"serve" in words and b"toolfuzz" in words
    return count


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.served", description=__doc__.splitlines()[0])
    p.add_argument("--python", required=True, help="the python of the environment (.venv-vllm/bin/python)")
    p.add_argument("--environment", required=True, help="the built-in environment's name (vllm, sglang)")
    p.add_argument("--budget", type=float, default=60, help="seconds of search (default 60)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    args = p.parse_args(argv)
    row = measure(args.python, args.environment, args.budget, args.workers)
    widths = [max(len(h), len(c)) for h, c in zip(HEADER, row)]
    print("  ".join(h.rjust(w) for h, w in zip(HEADER, widths)))
    print("  ".join(c.rjust(w) for c, w in zip(row, widths)))


if __name__ == "__main__":
    main()
