"""``--target SPEC``: built-in names, module:attr, file.py:attr, and one clear error for each bad spec."""


import sys

import pytest

from toolfuzz.errors import UsageError
from toolfuzz.targets.specs import qualified_name, resolve, resolve_all
from toolfuzz.targets.selftest.plain import assemble_chunks
from toolfuzz.targets.selftest import SELFTEST
from tests.paths import DATA

DATA = DATA


def test_built_in_names_and_the_selftest_group():
    assert [t.name for t in resolve("reference")] == ["reference"]
    assert resolve("selftest") == list(SELFTEST)


def test_module_attr_and_file_attr_become_plain_targets_at_the_given_level():
    (t,) = resolve("toolfuzz.targets.selftest.plain:assemble_chunks")
    assert t.level == "events" and t.reports == frozenset({"ids", "names", "completion"})
    (f,) = resolve(f"{DATA / 'other_assembler.py'}:assemble", level="bytes")
    assert f.level == "bytes" and f.fn([]) == []


def test_a_plain_function_is_named_by_the_module_it_is_defined_in_however_it_is_reached(tmp_path, monkeypatch):
    # toolfuzz.targets.selftest re-exports the plain assembler's function: one function, one name.
    defined = "toolfuzz.targets.selftest.plain:assemble_chunks"
    assert [t.name for t in resolve(defined)] == [defined]
    assert [t.name for t in resolve("toolfuzz.targets.selftest:assemble_chunks")] == [defined]
    assert qualified_name(assemble_chunks) == defined  # as toolfuzz.testing.check_assembler names it


def test_a_file_is_named_as_a_module_from_the_current_folder_else_by_its_whole_path(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mine.py").write_text("def assemble(chunks):\n    return []\n")
    monkeypatch.chdir(tmp_path)
    for spec in ("pkg/mine.py:assemble", "./pkg/mine.py:assemble", f"{tmp_path}/pkg/mine.py:assemble"):
        assert [t.name for t in resolve(spec)] == ["pkg.mine:assemble"], spec
    monkeypatch.chdir(DATA)
    assert [t.name for t in resolve(f"{tmp_path}/pkg/mine.py:assemble")] == [f"{tmp_path}/pkg/mine.py:assemble"]


def test_callable_instances_are_named_by_the_spec_that_reached_each(tmp_path, monkeypatch):
    # Two instances of one class are two targets: the attribute names each.
    (tmp_path / "mine.py").write_text("class A:\n    def __call__(self, chunks):\n        return []\n\n\n"
                                      "first, second = A(), A()\n")
    monkeypatch.chdir(tmp_path)
    assert [t.name for t in resolve_all(["mine.py:first", "mine.py:second"])] == ["mine:first", "mine:second"]


@pytest.mark.parametrize("spec,words", [
    ("nonsense", "not a built-in target"),
    ("no_such_module_xyz:f", "cannot import no_such_module_xyz"),
    ("toolfuzz.targets.selftest.plain:missing", "has no attribute 'missing'"),
    ("toolfuzz.targets.selftest.plain:COMPLETING", "not a callable"),
    ("toolfuzz.targets.selftest.plain:PlainAssembler.entry", "must take one argument"),
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


def test_a_built_in_target_whose_library_is_missing_or_broken_says_why(monkeypatch):
    from toolfuzz.targets import adapters

    # A library that is installed (hypothesis is) but whose adapter module fails to import.
    broken = adapters.Adapter("toolfuzz.targets.adapters.no_such_adapter", ("hypothesis",), "x", ("broken-one",))
    absent = adapters.Adapter("toolfuzz.targets.adapters.no_such_adapter_2", ("no-such-distribution",), "absent",
                              ("absent-one",))
    monkeypatch.setattr(adapters, "KNOWN", (*adapters.KNOWN, broken, absent))
    with pytest.raises(UsageError, match=r"^--target broken-one: a built-in target whose library is installed but "
                                         r"does not import: ModuleNotFoundError: No module named "
                                         r"'toolfuzz.targets.adapters.no_such_adapter'$"):
        resolve("broken-one")
    with pytest.raises(UsageError, match=r"^--target absent-one: a built-in target whose library is not installed "
                                         r"\(pip install 'toolfuzz\[absent\]'\)$"):
        resolve("absent-one")
    assert adapters.unavailable("reference") is None and adapters.unavailable("nonsense") is None


def test_a_built_in_target_on_a_release_older_than_its_adapter_supports_says_which_and_why(monkeypatch):
    from importlib import metadata

    from toolfuzz.targets import adapters
    from toolfuzz.vocabulary import version_key

    installed = metadata.version("hypothesis")
    newer = ".".join(str(n + 1) for n in version_key(installed))
    # The module is never imported: an import there could fail in a way that says nothing of the release.
    old = adapters.Adapter("toolfuzz.targets.adapters.no_such_adapter_too_old", ("hypothesis",), "x", ("too-old-one",),
                           since=newer, why="what it reads came in that release")
    monkeypatch.setattr(adapters, "KNOWN", (*adapters.KNOWN, old))
    assert adapters.unavailable("too-old-one") == (f"needs hypothesis {newer} or later, not {installed}: "
                                                   "what it reads came in that release")
    assert adapters.verified()["too-old-one"] == f"this adapter: {newer} and later"


def test_a_module_in_the_current_folder_is_found_as_python_m_finds_it(tmp_path, monkeypatch):
    # The toolfuzz script's import path starts with its own folder, not the current one.
    (tmp_path / "beside_the_user.py").write_text("def assemble(chunks):\n    return []\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (t,) = resolve("beside_the_user:assemble")
    assert t.name == "beside_the_user:assemble" and t.fn([]) == []
    # Last on the path: it never shadows an installed module of the same name.
    assert sys.path[-1] == str(tmp_path)


def test_a_missing_module_in_the_current_folder_is_still_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    with pytest.raises(UsageError, match="cannot import not_here_at_all"):
        resolve("not_here_at_all:assemble")
