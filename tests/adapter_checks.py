"""What the library adapters' tests share: the seed fixtures, a target's divergences on a case, and what to do
when a library is not installed."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

from toolfuzz.judge.compare import compare
from toolfuzz.corpus.fixtures import load
from toolfuzz.vocabulary import Case
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets import adapters
from toolfuzz.targets.adapters.scopes import scope_for
from toolfuzz.targets.base import Target
from toolfuzz.targets.reference import assemble
from tests.paths import ROOT

SEED = Path(__file__).resolve().parent.parent / "findings" / "seed"
SEEDS = sorted(p.stem for p in SEED.glob("*.json"))
#: .ci/run installs every adapter's library, llama-index in .venv-llama and node for examples/node-openai: there a
#: missing one is a broken install, and skipping its tests would turn CI green while testing less. Elsewhere
#: (``pip install -e ".[test]"``) the tests of what is not installed skip.
STRICT = bool(os.environ.get("CI"))
#: The python of the environment llama-index lives in (it needs openai<3, the other adapters openai>=3);
#: .ci/run names .venv-llama/bin/python. See tests/targets/adapters/test_llama_index_venv.py.
LLAMA_PYTHON = os.environ.get("TOOLFUZZ_LLAMA_PYTHON", "")
#: The python of the environment sglang's parsers live in (sglang pins openai 2.8, and goes in without its
#: dependencies); .ci/run names .venv-sglang/bin/python. See tests/targets/adapters/test_sglang_venv.py.
SGLANG_PYTHON = os.environ.get("TOOLFUZZ_SGLANG_PYTHON", "")
#: The python of the environment vLLM's parsers live in (with a CPU torch; vLLM goes in without its
#: dependencies); .ci/run names .venv-vllm/bin/python. See tests/targets/adapters/test_vllm_venv.py.
VLLM_PYTHON = os.environ.get("TOOLFUZZ_VLLM_PYTHON", "")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "node-openai"
#: The Vercel AI SDK's parsePartialJson at level partial (its findings: findings/ai-sdk/).
PARTIAL_EXAMPLE = EXAMPLE.parent / "node-partial"
#: A generous per-case limit: a loaded CI machine must not turn a slow library into a finding.
TIMEOUT = 30.0


def seed(name: str) -> Case:
    return load(SEED / f"{name}.json").case


def case_of(wire: bytes) -> Case:
    """A one-read case whose expected outcome is the reference's."""
    return Case(reads=(wire,), expected=assemble([wire]))


def run(target: Target, case: Case) -> Observation:
    return observe(target, case, timeout=TIMEOUT)


def kinds(target: Target, case: Case) -> list[str]:
    return [d.kind for d in compare(case.expected, run(target, case), target)]


def calls(target: Target, case: Case) -> list[tuple]:
    """(index, id, name, arguments, complete) of each call the target hands on."""
    obs = run(target, case)
    assert obs.raised is None, obs.raised
    return [(c.index, c.id, c.name, c.arguments, c.complete) for c in obs.calls]


def assert_registered(target: Target, version: str) -> None:
    """The target is registered and carries the installed library's version (the releases it is verified on are
    tests/corpus/test_verification.py's: toolfuzz verify runs this on releases not yet verified).

    Only this adapter's entry is loaded (the registry's own path: distributions
    present, module imported), not every installed library's."""
    (entry,) = [a for a in adapters.KNOWN if target.name in a.names]
    loaded, why = adapters._load(entry)
    (registered,) = [t for t in loaded if t.name == target.name]
    # The registry's copy is the module's target with its scope from the one table (adapters/scopes.py).
    assert why == "" and registered == replace(target, scope=scope_for(target.name))
    assert target.version == version


#: What every adapter that agrees with the seed's interleaved example returns for it.
TWO_CALLS = [(0, "call_w1", "get_weather", '{"city": "Paris", "unit": "celsius"}', True),
             (1, "call_r1", "read_file", '{"path": "/etc/hosts"}', True)]


def unavailable(reason: str) -> NoReturn:
    """Skip what needs a missing library or program; under CI fail instead (see STRICT)."""
    if STRICT:
        pytest.fail(f"{reason}; under CI every adapter is installed (.ci/run), so this is a broken install",
                    pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require(module: str) -> ModuleType:
    """``pytest.importorskip`` that fails under CI. Only a module that is absent counts as not installed:
    one that is present and raises on import is an error everywhere."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        why = str(e)
    unavailable(f"{module} is not installed ({why})")  # outside the handler: no chained traceback to read past


def require_adapter(target: str) -> None:
    """Skip (fail under CI) where the installed release is one the target's adapter does not support, or lacks."""
    why = adapters.unavailable(target)
    if why:
        unavailable(f"{target}: {why}")


def node_example(example: Path = EXAMPLE, package: str = "openai") -> Path:
    """An npm example (examples/node-openai, or examples/node-partial with ``package`` ai) with its locked
    packages installed (``npm ci --prefix examples/<example>``).

    The tests never install them: npm needs the registry, and a test that downloads is slow and fails for
    reasons of its own. .ci/run runs npm ci before pytest."""
    if not shutil.which("node"):
        unavailable("node is not installed")
    wanted = json.loads((example / "package-lock.json").read_text())["packages"][f"node_modules/{package}"]["version"]
    installed = example / "node_modules" / package / "package.json"
    if not installed.is_file() or json.loads(installed.read_text())["version"] != wanted:
        unavailable(f"{package} {wanted} is not installed in {example}: npm ci --prefix examples/{example.name}")
    return example


def adapter_tests_pass_in(python: str, tests: str) -> None:
    """The tests in ``tests`` (a path under the checkout), run by ``python`` (an environment of their own),
    pass, and all of them ran: exit 0 also covers "all skipped"."""
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", tests],
                          cwd=ROOT, capture_output=True, text=True, timeout=500)  # under pytest-timeout's 600 s
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    assert re.search(r"\b\d+ passed\b", summary) and not re.search(r"skipped|deselected|xfail", summary), out


def producer_run_served_from(environment: str, python: str, targets: list[str], folder: Path) -> tuple[int, dict]:
    """``toolfuzz run --level producer`` of ``targets`` (``NAME@environment``), 150 examples, from this
    environment: the engine's environment as ``toolfuzz env add`` leaves it, made of ``python``'s (its folder
    and its record); the exit status and the JSON summary.  Fixtures go to ``folder / "found"``."""
    envs = folder / "envs"
    envs.mkdir()
    (envs / environment).symlink_to(Path(python).parent.parent)
    record = envs / environment / "toolfuzz-env.json"
    try:
        record.write_text(json.dumps({"name": environment, "requirements": [], "toolfuzz": ""}))
        done = subprocess.run(
            [sys.executable, "-m", "toolfuzz", "run", "--level", "producer",
             *(a for t in targets for a in ("--target", t)), "--max-examples", "150", "--seed", "3",
             "--database", "none", "--findings", str(folder / "found"), "--json"],
            cwd=ROOT, capture_output=True, text=True, timeout=500, env={**os.environ, "TOOLFUZZ_ENVS": str(envs)})
    finally:
        record.unlink(missing_ok=True)  # the record is written into the real environment's folder
    assert done.returncode in (0, 1) and done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)
