"""``toolfuzz targets``: every built-in target, and every adapter that cannot load with why."""

from __future__ import annotations

import json
import re

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


def test_on_a_100_column_terminal_the_table_fits_and_wide_prints_it_whole(capsys, monkeypatch):
    assert main(["targets"]) == 0
    whole = capsys.readouterr().out
    assert max(len(line) for line in whole.splitlines()) > 100
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["targets"]) == 0
    fitted = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in fitted) <= 100
    # Which columns drop depends on how wide the installed libraries' rows are; the footer names exactly those.
    columns, shown = re.split(r"\s{2,}", whole.splitlines()[0].strip()), re.split(r"\s{2,}", fitted[0].strip())
    assert shown[:2] == ["name", "level"] and shown[-1] == "what" and set(shown) < set(columns)
    left_out = ", ".join(c for c in columns if c not in shown)
    assert fitted[-1] == f"({left_out}: left out to fit 100 columns; --wide shows them)"
    # Each target is still a row of its own, under its whole name.
    assert [line.split()[0] for line in fitted if line.startswith("selftest-hand-out-after-disconnect ")] == [
        "selftest-hand-out-after-disconnect"]
    assert main(["targets", "--wide"]) == 0
    assert capsys.readouterr().out == whole
