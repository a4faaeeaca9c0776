"""Hypothesis profiles: derandomised under CI, so a red build is a regression and not a lucky draw; and which
llama-index test module runs here."""

import importlib.util
import os

from hypothesis import HealthCheck, settings

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
