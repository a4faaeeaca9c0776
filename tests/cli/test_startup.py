"""``toolfuzz assemble`` starts like a script: Hypothesis, the strategies and the adapters stay out of it.

Each check runs the command as a user does, in a fresh interpreter with
``-X importtime``, and reads the modules it imported from that report.  The
times themselves are measured by ``python -m bench.startup``, not asserted here.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.paths import ROOT

EXAMPLES = ROOT / "harness" / "examples"

#: Never needed to assemble one capture: the generators, the fuzzing engine, the library adapters.
NEVER = ("hypothesis", "hypothesis_jsonschema", "toolfuzz.strategies", "toolfuzz.targets.adapters",
         "toolfuzz.targets.registry", "toolfuzz.judge", "toolfuzz.engine")
#: ``--help`` does not even assemble: no reference, no schema validation.
NOT_FOR_HELP = NEVER + ("jsonschema", "toolfuzz.targets.reference", "toolfuzz.schemas")


def imported(*argv: str, stdin: bytes = b"") -> set[str]:
    """Every module ``python -m toolfuzz ARGV`` imports, from its ``-X importtime`` report."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "toolfuzz", *argv],
                          input=stdin, capture_output=True, timeout=120, check=False)
    report = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, report[-2000:]
    modules = {line.rsplit("|", 1)[1].strip() for line in report.splitlines() if line.startswith("import time:")}
    assert "toolfuzz.cli" in modules, "the report should name every module imported"
    return modules


def offenders(modules: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == b or m.startswith(b + ".") for b in banned))


def test_assemble_help_imports_neither_hypothesis_nor_jsonschema_nor_the_targets():
    assert offenders(imported("assemble", "--help"), NOT_FOR_HELP) == []


def test_assemble_imports_only_the_reference_for_a_small_stream():
    modules = imported("assemble", "-", stdin=(EXAMPLES / "two-calls.sse").read_bytes())
    assert "toolfuzz.targets.reference" in modules
    # No tools, nothing to validate: jsonschema takes longer to import than the rest starts.
    assert offenders(modules, NEVER + ("jsonschema",)) == []


def test_assemble_with_tools_imports_no_generator_either():
    modules = imported("assemble", str(EXAMPLES / "two-calls.sse"), "--tools", str(EXAMPLES / "tools.json"))
    assert "jsonschema" in modules  # the tools' schemas are checked
    assert offenders(modules, NEVER) == []


@pytest.mark.parametrize("banned", ["hypothesis", "toolfuzz.strategies.values", "jsonschema.validators"])
def test_the_check_sees_a_module_imported_deep_down(banned):
    # The report lists modules imported by other modules too, not the top level alone.
    assert offenders({"toolfuzz.cli", banned}, NOT_FOR_HELP) == [banned]
    assert offenders({"toolfuzz.cli", "hypothesisx", "jsonschemas"}, NOT_FOR_HELP) == []
