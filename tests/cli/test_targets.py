"""``toolfuzz targets``: every built-in target, and every adapter that cannot load with why."""

from __future__ import annotations

import json

from toolfuzz.cli import main
from toolfuzz.targets import adapters


def test_the_json_lists_every_built_in_target_and_says_why_an_adapter_cannot_load(capsys, monkeypatch):
    broken = adapters.Adapter("toolfuzz.targets.adapters.no_such_adapter_3", ("hypothesis",), "x", ("broken-three",))
    monkeypatch.setattr(adapters, "KNOWN", (*adapters.KNOWN, broken))
    assert main(["targets", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["reference"]["installed"] and not rows["reference"]["library"]
    assert rows["selftest-plain"]["what"].startswith("[self-test] ")
    assert not rows["broken-three"]["installed"] and rows["broken-three"]["library"]
    assert rows["broken-three"]["what"].startswith("installed but does not import: ModuleNotFoundError")
    assert main(["targets"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("broken-three ")]
    assert line.split()[4] == "no" and line.endswith("No module named "
                                                                      "'toolfuzz.targets.adapters.no_such_adapter_3'")
