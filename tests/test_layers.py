"""The package as a user installs it: one import name, and layers that import only downward.

The wheel is built from this checkout and unpacked; ``lint-imports`` (import-linter)
checks the contract in pyproject.toml against that unpacked copy, because an editable
install maps three folders onto one package, which import-linter cannot follow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel of this checkout, unpacked: what ``pip install .`` puts in site-packages."""
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what a wheel takes, so that the build leaves nothing in the checkout.
    source = out / "source"
    for folder in ("harness", "strategies", "targets"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(out), str(source)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = out.glob("toolfuzz-*.whl")
    site = out / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    return site


def lint_imports(site: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([str(exe), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=site,
                          capture_output=True, text=True, env=env, timeout=300)


def test_the_wheel_installs_one_name_with_every_file_of_the_three_folders(installed):
    assert sorted(p.name for p in installed.iterdir()) == ["toolfuzz", "toolfuzz-0.1.0.dist-info"]
    for folder, name in (("harness", "toolfuzz"), ("strategies", "toolfuzz/strategies"),
                         ("targets", "toolfuzz/targets")):
        for source in (ROOT / folder).rglob("*"):
            if source.is_file() and "__pycache__" not in source.parts:
                assert (installed / name / source.relative_to(ROOT / folder)).is_file(), source


def test_the_layer_contract_holds(installed):
    done = lint_imports(installed)
    assert done.returncode == 0 and "1 kept, 0 broken" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_layer_contract_fails_on_an_upward_import(installed, tmp_path):
    broken = tmp_path / "site"
    shutil.copytree(installed, broken)
    vocabulary = broken / "toolfuzz" / "vocabulary.py"
    vocabulary.write_text(vocabulary.read_text() + "\nimport toolfuzz.engine.search  # upward\n")
    done = lint_imports(broken)
    assert done.returncode != 0 and "BROKEN" in done.stdout
    assert "toolfuzz.vocabulary -> toolfuzz.engine.search" in done.stdout, done.stdout[-3000:]


def test_strategies_and_targets_never_import_each_other(installed, tmp_path):
    broken = tmp_path / "site"
    shutil.copytree(installed, broken)
    base = broken / "toolfuzz" / "targets" / "base.py"
    base.write_text(base.read_text() + "\nimport toolfuzz.strategies.plan  # sideways\n")
    done = lint_imports(broken)
    assert done.returncode != 0 and "toolfuzz.targets.base -> toolfuzz.strategies.plan" in done.stdout
