"""``--target SPEC``: built-in names, module:attr, file.py:attr, and one clear error for each bad spec."""

from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.targetspec import resolve, resolve_all
from targets.selftest import SELFTEST

DATA = Path(__file__).resolve().parent / "data"


def test_built_in_names_and_the_selftest_group():
    assert [t.name for t in resolve("reference")] == ["reference"]
    assert resolve("selftest") == list(SELFTEST)


def test_module_attr_and_file_attr_become_plain_targets_at_the_given_level():
    (t,) = resolve("targets.selftest.plain:assemble_chunks")
    assert t.level == "events" and t.reports == frozenset({"ids", "names", "completion"})
    (f,) = resolve(f"{DATA / 'other_assembler.py'}:assemble", level="bytes")
    assert f.level == "bytes" and f.fn([]) == []


@pytest.mark.parametrize("spec,words", [
    ("nonsense", "not a built-in target"),
    ("no_such_module_xyz:f", "cannot import no_such_module_xyz"),
    ("targets.selftest.plain:missing", "has no attribute 'missing'"),
    ("targets.selftest.plain:COMPLETING", "not a callable"),
    ("targets.selftest.plain:PlainAssembler.entry", "must take one argument"),
    ("/no/such/file.py:f", "no file /no/such/file.py"),
])
def test_bad_specs_are_one_clear_error(spec, words):
    with pytest.raises(UsageError, match=words):
        resolve(spec)


def test_a_module_that_fails_to_import_is_reported_not_raised(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no API key')\n")
    with pytest.raises(UsageError, match="loading .*broken.py raised RuntimeError: no API key"):
        resolve(f"{broken}:f")


def test_the_same_target_twice_is_refused():
    with pytest.raises(UsageError, match="already in this run"):
        resolve_all(["reference", "reference"])
