"""The sglang adapter's tests, run by the python of the environment sglang lives in, and a producer run over it.

sglang pins openai 2.8 and its metadata asks for torch, so no environment holds it beside the other adapters:
.ci/run makes .venv-sglang (sglang installed without its dependencies) and names its python in
TOOLFUZZ_SGLANG_PYTHON. Where sglang is not installed but that python is named, tests/conftest.py collects this
module in place of test_sglang.py, so the main run still runs those tests, in a child process.
"""

from __future__ import annotations

import json

from tests.adapter_checks import SGLANG_PYTHON, adapter_tests_pass_in, producer_run_served_from


def test_the_sglang_adapter_tests_pass_in_their_own_environment():
    adapter_tests_pass_in(SGLANG_PYTHON, "tests/targets/adapters/test_sglang.py")


def test_a_producer_run_serves_the_sglang_targets_from_their_environment(tmp_path):
    code, summary = producer_run_served_from("sglang", SGLANG_PYTHON,
                                             ["sglang-hermes@sglang", "sglang-kimi-k2@sglang"], tmp_path)
    assert code == 1 and summary["examples"] == 150  # it finds something
    found = {t["name"]: [d["kind"] for d in t["divergences"]] for t in summary["targets"]}
    assert set(found) == {"sglang-hermes@sglang", "sglang-kimi-k2@sglang"}
    # hermes hands on a call whose text came in one batch without its arguments: met on the plainest case.
    assert "arguments_invalid" in found["sglang-hermes@sglang"], found
    fixture = json.loads(next((tmp_path / "found").rglob("*.json")).read_text())
    assert fixture["dialect"] in ("text:hermes", "text:kimi-k2") and fixture["expected"]["content"] is not None
