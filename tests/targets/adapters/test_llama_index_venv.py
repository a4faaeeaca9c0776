"""The llama-index adapter's tests, run by the python of the environment llama-index lives in.

llama-index-llms-openai requires openai<3 and the other adapters openai>=3, so no one environment holds them
all: .ci/run installs llama-index in .venv-llama and names its python in TOOLFUZZ_LLAMA_PYTHON. Where
llama-index does not import but that python is named, tests/conftest.py collects this module in place of
test_llama_index.py, so the main run still runs those tests, in a child process, and fails if they fail or
skip. The findings recorded on llama-index are replayed there too (tests/test_findings_corpus.py).
"""

from __future__ import annotations

from tests.adapter_checks import LLAMA_PYTHON, adapter_tests_pass_in


def test_the_llama_index_adapter_tests_pass_in_their_own_environment():
    adapter_tests_pass_in(LLAMA_PYTHON, "tests/targets/adapters/test_llama_index.py")
