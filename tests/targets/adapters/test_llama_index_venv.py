"""The llama-index adapter's tests, run by the python of the environment llama-index lives in.

llama-index-llms-openai requires openai<3 and the other adapters openai>=3, so no one environment holds them
all: .ci/run installs llama-index in .venv-llama and names its python in TOOLFUZZ_LLAMA_PYTHON. Where
llama-index does not import but that python is named, tests/conftest.py collects this module in place of
test_llama_index.py, so the main run still runs those tests, in a child process, and fails if they fail or
skip. The findings recorded on llama-index are replayed there too (tests/test_findings_corpus.py).
"""

from __future__ import annotations

import re
import subprocess

from tests.adapter_checks import LLAMA_PYTHON
from tests.paths import ROOT


def test_the_llama_index_adapter_tests_pass_in_their_own_environment():
    done = subprocess.run(
        [LLAMA_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/targets/adapters/test_llama_index.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=500)  # under pytest-timeout's 600 s: our message wins
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    # Exit 0 also covers "all skipped": the point is that they ran.
    assert re.search(r"\b\d+ passed\b", summary) and not re.search(r"skipped|deselected|xfail", summary), out
