"""The sglang adapter's tests, run by the python of the environment sglang lives in, and a producer run over it.

sglang pins openai 2.8 and its metadata asks for torch, so no environment holds it beside the other adapters:
.ci/run makes .venv-sglang (sglang installed without its dependencies) and names its python in
TOOLFUZZ_SGLANG_PYTHON. Where sglang is not installed but that python is named, tests/conftest.py collects this
module in place of test_sglang.py, so the main run still runs those tests, in a child process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.adapter_checks import SGLANG_PYTHON
from tests.paths import ROOT


def test_the_sglang_adapter_tests_pass_in_their_own_environment():
    done = subprocess.run(
        [SGLANG_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/targets/adapters/test_sglang.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=500)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    assert re.search(r"\b\d+ passed\b", summary) and not re.search(r"skipped|deselected|xfail", summary), out


def test_a_producer_run_serves_the_sglang_targets_from_their_environment(tmp_path):
    # The environment as `toolfuzz env add sglang` leaves it, made of .ci/run's: its folder and its record.
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "sglang").symlink_to(Path(SGLANG_PYTHON).parent.parent)
    record = {"name": "sglang", "requirements": [], "toolfuzz": ""}
    env = {**os.environ, "TOOLFUZZ_ENVS": str(envs)}
    try:
        (envs / "sglang" / "toolfuzz-env.json").write_text(json.dumps(record))
        done = subprocess.run(
            [sys.executable, "-m", "toolfuzz", "run", "--level", "producer", "--target", "sglang-hermes@sglang",
             "--target", "sglang-kimi-k2@sglang", "--max-examples", "150", "--seed", "3", "--database", "none",
             "--findings", str(tmp_path / "found"), "--json"],
            cwd=ROOT, capture_output=True, text=True, timeout=500, env=env)
    finally:
        (envs / "sglang" / "toolfuzz-env.json").unlink(missing_ok=True)
    assert done.returncode == 1, done.stderr  # it finds something
    summary = json.loads(done.stdout)
    assert summary["examples"] == 150
    found = {t["name"]: [d["kind"] for d in t["divergences"]] for t in summary["targets"]}
    assert set(found) == {"sglang-hermes@sglang", "sglang-kimi-k2@sglang"}
    # hermes hands on a call whose text came in one batch without its arguments: met on the plainest case.
    assert "arguments_invalid" in found["sglang-hermes@sglang"], found
    fixture = json.loads(next((tmp_path / "found").rglob("*.json")).read_text())
    assert fixture["dialect"] in ("text:hermes", "text:kimi-k2") and fixture["expected"]["content"] is not None
