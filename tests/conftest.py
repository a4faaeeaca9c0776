"""Hypothesis profiles: derandomised under CI, so a red build is a regression and not a lucky draw; which
llama-index test module runs here; and no library reaching for the network while the tests import it."""

import importlib.util
import os

from hypothesis import HealthCheck, settings

# Collecting tests/targets/adapters/test_litellm.py imports litellm before its adapter can say this, and
# litellm would then fetch its model cost map over the network from a thread of its own, whose warning
# lands in whichever test captures stderr at that moment.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("TOOLFUZZ_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# llama-index-llms-openai needs openai<3, so it is installed in an environment of its own (.ci/run makes
# .venv-llama and names its python in TOOLFUZZ_LLAMA_PYTHON). One of the two llama-index modules is collected:
# its tests where llama-index imports (or nothing says where else it is: then they skip, or fail under CI),
# else the one that runs them with that python.
if importlib.util.find_spec("llama_index") is not None or not os.environ.get("TOOLFUZZ_LLAMA_PYTHON"):
    collect_ignore = ["targets/adapters/test_llama_index_venv.py"]
else:
    collect_ignore = ["targets/adapters/test_llama_index.py"]
# Likewise sglang, whose parsers live in .venv-sglang (TOOLFUZZ_SGLANG_PYTHON): it pins openai 2.8.
if importlib.util.find_spec("sglang") is not None or not os.environ.get("TOOLFUZZ_SGLANG_PYTHON"):
    collect_ignore.append("targets/adapters/test_sglang_venv.py")
else:
    collect_ignore.append("targets/adapters/test_sglang.py")
# And vLLM, whose parsers need torch and live in .venv-vllm (TOOLFUZZ_VLLM_PYTHON).
if importlib.util.find_spec("vllm") is not None or not os.environ.get("TOOLFUZZ_VLLM_PYTHON"):
    collect_ignore.append("targets/adapters/test_vllm_venv.py")
else:
    collect_ignore.append("targets/adapters/test_vllm.py")
