"""The vLLM adapter's tests, run by the python of the environment vLLM lives in, and a producer run over it.

vLLM needs torch at import and its metadata pins a GPU stack, so no environment holds it beside the other
adapters: .ci/run makes .venv-vllm (a CPU torch, vLLM installed without its dependencies) and names its python in
TOOLFUZZ_VLLM_PYTHON. Where vLLM is not installed but that python is named, tests/conftest.py collects this module
in place of test_vllm.py, so the main run still runs those tests, in a child process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.adapter_checks import VLLM_PYTHON
from tests.paths import ROOT


def test_the_vllm_adapter_tests_pass_in_their_own_environment():
    done = subprocess.run(
        [VLLM_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/targets/adapters/test_vllm.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=500)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    assert re.search(r"\b\d+ passed\b", summary) and not re.search(r"skipped|deselected|xfail", summary), out


def test_a_producer_run_serves_the_vllm_targets_from_their_environment(tmp_path):
    # The environment as `toolfuzz env add vllm` leaves it, made of .ci/run's: its folder and its record.
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "vllm").symlink_to(Path(VLLM_PYTHON).parent.parent)
    record = {"name": "vllm", "requirements": [], "toolfuzz": ""}
    env = {**os.environ, "TOOLFUZZ_ENVS": str(envs)}
    try:
        (envs / "vllm" / "toolfuzz-env.json").write_text(json.dumps(record))
        done = subprocess.run(
            [sys.executable, "-m", "toolfuzz", "run", "--level", "producer", "--target", "vllm-deepseek-v3@vllm",
             "--target", "vllm-kimi-k2@vllm", "--max-examples", "150", "--seed", "3", "--database", "none",
             "--findings", str(tmp_path / "found"), "--json"],
            cwd=ROOT, capture_output=True, text=True, timeout=500, env=env)
    finally:
        (envs / "vllm" / "toolfuzz-env.json").unlink(missing_ok=True)
    assert done.returncode == 1, done.stderr  # it finds something
    summary = json.loads(done.stdout)
    assert summary["examples"] == 150
    found = {t["name"]: [d["kind"] for d in t["divergences"]] for t in summary["targets"]}
    assert set(found) == {"vllm-deepseek-v3@vllm", "vllm-kimi-k2@vllm"}
    # DeepSeek V3 streams nothing of a call whose text comes in one batch: met on the plainest case.
    assert "call_lost" in found["vllm-deepseek-v3@vllm"], found
    fixture = json.loads(next((tmp_path / "found").rglob("*.json")).read_text())
    assert fixture["dialect"] in ("text:deepseek-v3", "text:kimi-k2") and fixture["expected"]["content"] is not None
