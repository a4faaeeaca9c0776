"""The nightly workflow is valid against GitHub's workflow schema (vendored by check-jsonschema: no network)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML  # check-jsonschema's own YAML reader
from tests.paths import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "nightly.yml"


def lint(path: Path) -> subprocess.CompletedProcess:
    tool = shutil.which("check-jsonschema") or str(Path(sys.executable).with_name("check-jsonschema"))
    return subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_the_nightly_workflow_passes_the_workflow_schema():
    result = lint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_linter_rejects_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on:", "run-on:"))
    assert lint(broken).returncode != 0


def test_the_workflow_caches_the_database_runs_sharded_workers_and_uploads_findings():
    doc = YAML(typ="safe").load(WORKFLOW.read_text())
    steps = doc["jobs"]["fuzz"]["steps"]
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache"))
    assert cache["with"]["path"] == ".toolfuzz/db" and cache["with"]["restore-keys"].strip()
    search = next(s for s in steps if s.get("name") == "Search")["run"]
    assert "--workers 2" in search and "--shard ${{ matrix.shard }}/4" in search and "--report" in search
    assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)
