"""``toolfuzz run --report FILE.md|FILE.html``: what a night's run found, for the morning.

The report is made from the run's JSON summary (the one ``--json`` prints):
new findings (fixture files this run wrote), fixed findings (fixtures already
in the findings folder whose target, run again on them now, no longer
diverges), the matrix of targets by divergence kinds, examples run per target
and per profile, and the time spent.  The HTML page shows more of each root
cause than a table can (:mod:`toolfuzz.outputs.report_html`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolfuzz.corpus.fixtures import iter_fixture_paths, write_atomic
from toolfuzz.outputs.report_html import page
from toolfuzz.targets.base import Target

__all__ = ["fixed_findings", "render", "write_report", "DEATH_KINDS"]

#: Kinds that say a target killed or stalled the process running it: such a target is not re-run
#: for the report in the run where it did so.
DEATH_KINDS = frozenset({"crash", "hang", "memory", "timed_out"})


def fixed_findings(root: Path, targets: list[Target], timeout: float, skip: set[str] = frozenset(),
                   new: set[str] = frozenset()) -> list[dict[str, Any]]:
    """Fixtures under ``root`` recorded as diverging for one of ``targets`` that no longer do.

    Fixtures written this run (``new``) or for targets in ``skip`` (ones that killed a worker or timed
    out this run) are not re-run.  A ``crash``, ``hang`` or ``memory`` fixture is replayed in a child
    process of its own (:mod:`toolfuzz.judge.child`), so a target that still dies cannot end the report.
    """
    from toolfuzz.corpus.replay import read_fixtures, replay

    if not root.is_dir():
        return []
    by_name = {t.name: t for t in targets}
    fixed = []
    for path in iter_fixture_paths([str(root)]):
        if str(path) in new:
            continue
        readable, _ = read_fixtures([str(path)])
        if not readable:
            continue  # a file that cannot be read is not this report's to fix
        [loaded] = readable
        mine = [by_name[n] for n in loaded.fixture.observed
                if n in by_name and n not in skip and loaded.recorded(n)[0]]
        if not mine:
            continue
        for cell in replay([loaded], given=mine, timeout=timeout).cells:
            if cell.verdict == "fixed":
                fixed.append({"target": cell.target, "kind": cell.recorded_kind, "fixture": str(path)})
    return fixed


def write_report(path: str, summary: dict[str, Any], fixed: list[dict[str, Any]]) -> None:
    write_atomic(path, render(path, summary, fixed))


def render(path: str, summary: dict[str, Any], fixed: list[dict[str, Any]]) -> str:
    """Markdown for ``.md``, a standalone page for ``.html`` or ``.htm``."""
    if path.lower().endswith((".html", ".htm")):
        return page(summary, fixed, _ranked(summary), _blocks(summary, fixed, causes=False))
    return _markdown(_blocks(summary, fixed))


def _ranked(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Every root cause of the run, each with its target: new ones first, then those met in the most targets,
    the most hit."""
    divergences = [d | {"target": t["name"]} for t in summary["targets"] for d in t["divergences"]]
    return sorted(divergences, key=lambda d: (d.get("file") != "written", -len(_affected(d)), -d.get("hits", 0),
                                              d["signature"]))


def _blocks(summary: dict[str, Any], fixed: list[dict[str, Any]], causes: bool = True) -> list[tuple[str, Any]]:
    """The report as (heading, paragraph | table) blocks, one source for both formats; the page shows the root
    causes its own way (``causes`` False leaves their table out)."""
    targets = summary["targets"]
    divergences = [d | {"target": t["name"]} for t in targets for d in t["divergences"]]
    new = [d for d in divergences if d.get("file") == "written"]
    kinds = sorted({d["kind"] for d in divergences})
    ranked = _ranked(summary)
    stopped = summary.get("stopped_by") or "-"
    root_causes: list[tuple[str, Any]] = [
        ("h2", "Root causes"),
        ("table", [("target", "root cause", "new", "targets affected", "hits", "also as", "first seen")]
         + [(d["target"], d["signature"].split("/", 1)[1], "yes" if d.get("file") == "written" else "",
             ", ".join(_affected(d)), str(d.get("hits", 0)), ", ".join(d.get("also_as", [])) or "-", _seen(d))
            for d in ranked]) if ranked else ("p", "None."),
    ]
    blocks: list[tuple[str, Any]] = [
        ("h1", "toolfuzz run"),
        ("p", f"{summary['examples']} examples in {summary['seconds']:.1f} s {_where(summary.get('workers', 1))}, "
              f"seed {summary['seed']}, stopped by {stopped}; {len(new)} new finding(s), "
              f"{len(fixed)} fixed."),
        ("h2", "New findings"),
        ("table", [("target", "kind", "detail", "fixture")]
         + [(d["target"], d["kind"], d["detail"], d["fixture"]) for d in new]) if new else ("p", "None."),
        *(root_causes if causes else []),
        ("h2", "Fixed findings"),
        ("table", [("target", "kind", "fixture")] + [(f["target"], f["kind"] or "-", f["fixture"]) for f in fixed])
        if fixed else ("p", "None."),
        ("h2", "Matrix"),
        ("table", [("target", *kinds)] + [
            (t["name"], *[str(sum(d["kind"] == k for d in t["divergences"])) or "" for k in kinds]) for t in targets])
        if kinds else ("p", "No target diverged."),
        ("h2", "Examples and time per target"),
        ("table", [("target", "level", "examples", "seconds in target")]
         + [(t["name"], t["level"], str(t.get("examples", summary["examples"])), f"{t['seconds_in_target']:.2f}")
            for t in targets]),
        ("h2", "Examples per profile"),
        ("table", [("profile", "examples")] + [(p, str(n)) for p, n in summary.get("profiles", {}).items()])
        if summary.get("profiles") else ("p", "None counted."),
    ]
    notes = list(summary.get("flaky", [])) + [f"{t}: left out after killing workers"
                                              for t in summary.get("quarantined", [])]
    if notes:
        blocks += [("h2", "Notes"), ("list", notes)]
    return blocks


def _where(workers: int) -> str:
    return "in the run's own process" if workers == 0 else f"with {workers} worker(s)"


def _affected(divergence: dict[str, Any]) -> list[str]:
    """The targets a root cause was met in: its own, and those built on it (``Target.builds_on``)."""
    return [divergence["target"], *divergence.get("also_in", [])]


def _seen(divergence: dict[str, Any]) -> str:
    seen = divergence.get("first_seen")
    return f"example {seen['examples']}, {seen['seconds']:.1f} s" if seen else "-"


def _markdown(blocks: list[tuple[str, Any]]) -> str:
    out = []
    for kind, body in blocks:
        if kind == "h1":
            out.append(f"# {body}\n")
        elif kind == "h2":
            out.append(f"## {body}\n")
        elif kind == "p":
            out.append(f"{body}\n")
        elif kind == "list":
            out.append("\n".join(f"- {_md(item)}" for item in body) + "\n")
        else:
            head, *rows = body
            lines = ["| " + " | ".join(map(_md, head)) + " |", "|" + "---|" * len(head)]
            lines += ["| " + " | ".join(map(_md, row)) + " |" for row in rows]
            out.append("\n".join(lines) + "\n")
    return "\n".join(out)


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
