"""The vLLM adapter's tests, run by the python of the environment vLLM lives in, and a producer run over it.

vLLM needs torch at import and its metadata pins a GPU stack, so no environment holds it beside the other
adapters: .ci/run makes .venv-vllm (a CPU torch, vLLM installed without its dependencies) and names its python in
TOOLFUZZ_VLLM_PYTHON. Where vLLM is not installed but that python is named, tests/conftest.py collects this module
in place of test_vllm.py, so the main run still runs those tests, in a child process.
"""

from __future__ import annotations

import json

from tests.adapter_checks import VLLM_PYTHON, adapter_tests_pass_in, producer_run_served_from


def test_the_vllm_adapter_tests_pass_in_their_own_environment():
    adapter_tests_pass_in(VLLM_PYTHON, "tests/targets/adapters/test_vllm.py")


def test_a_producer_run_serves_the_vllm_targets_from_their_environment(tmp_path):
    code, summary = producer_run_served_from("vllm", VLLM_PYTHON, ["vllm-deepseek-v3@vllm", "vllm-kimi-k2@vllm"],
                                             tmp_path)
    assert code == 1 and summary["examples"] == 150  # it finds something
    found = {t["name"]: [d["kind"] for d in t["divergences"]] for t in summary["targets"]}
    assert set(found) == {"vllm-deepseek-v3@vllm", "vllm-kimi-k2@vllm"}
    # DeepSeek V3 streams nothing of a call whose text comes in one batch: met on the plainest case.
    assert "call_lost" in found["vllm-deepseek-v3@vllm"], found
    fixture = json.loads(next((tmp_path / "found").rglob("*.json")).read_text())
    assert fixture["dialect"] in ("text:deepseek-v3", "text:kimi-k2") and fixture["expected"]["content"] is not None
