"""``toolfuzz replay``'s report: the matrix of fixtures by targets, its one-line summary, and JUnit XML.

All three are made from a :class:`~toolfuzz.corpus.replay.Report`; what each
cell's verdict means is :mod:`toolfuzz.corpus.replay`'s.
"""

from __future__ import annotations

from typing import Sequence

from toolfuzz.corpus.fixtures import printable
from toolfuzz.corpus.replay import MAX_LABEL, REFERENCE_NAME, VERDICTS, Cell, Report, Unreadable, fixed_in, \
    shorten
from toolfuzz.outputs.junit import Result, Suite, junit_xml
from toolfuzz.outputs.tables import aligned, hanging

__all__ = ["LEGEND", "QUIET", "cell_text", "render", "summary", "replay_junit"]


MAX_DETAIL = 400
LEGEND = (
    ("ok", "agrees with the expected outcome"),
    ("fixed", "recorded as diverging, now agrees"),
    ("still fails", "recorded as diverging, still diverges as recorded"),
    ("changed", "recorded as diverging, now diverges another way"),
    ("DIVERGES k", "diverges with first kind k, and was not recorded: fails the replay"),
    ("RAISES", "raised, not recorded: fails (TIMEOUT: ran past --timeout; BLOCKED: tried a forbidden action)"),
    ("skipped", "recorded for the fixture but not run"),
    ("-", "not run on this fixture"),
    ("UNREADABLE", "the fixture file cannot be read or used (details say why): nothing ran on it"),
)


def cell_text(cell: Cell | None) -> str:
    """Words, not symbols; capitals for the cells that fail the replay."""
    if cell is None:
        return "-"
    what = cell.kind if cell.state == "diverges" else cell.state
    if cell.verdict == "unexpected":
        return f"DIVERGES {cell.kind}" if cell.state == "diverges" else cell.state.upper()
    if cell.verdict in ("still fails", "changed"):
        return f"{cell.verdict}: {what}"
    return cell.verdict  # ok, fixed, skipped


#: Verdicts with no news: what the fixture leads us to expect (ok; a recorded divergence that still fails)
#: and what did not run (skipped, or "-"). The summary line counts them; the compact matrix leaves them out.
QUIET = ("ok", "still fails", "skipped")


def render(report: Report, width: int = 120, compact: bool = False) -> str:
    """The matrix, the legend, the details of every cell that is not plain ok, and a summary line.

    Targets are numbered columns, named in a list above; when the columns are
    wider than ``width`` the matrix is printed in blocks of columns, each
    repeating the fixture names, rather than in lines a terminal folds.
    ``compact`` (for a person at a terminal) keeps only the fixtures and
    targets with a cell that has news (not one of :data:`QUIET`), says how
    many it left out, and folds every other line to ``width``.
    """
    index = {(id(c.fixture), c.target): c for c in report.cells}
    labels = [f.label for f in report.fixtures] + [_unreadable_label(u) for u in report.unreadable]
    rows = [[cell_text(index.get((id(f), t))) for t in report.targets] for f in report.fixtures]
    # A file that cannot be read is a row of its own, under the reference, which vouches for every fixture.
    rows += [["UNREADABLE"] + ["-"] * (len(report.targets) - 1) for _ in report.unreadable]
    shown, columns = range(len(labels)), range(len(report.targets))
    if compact:
        news = {(i, j) for i, f in enumerate(report.fixtures) for j, t in enumerate(report.targets)
                if (c := index.get((id(f), t))) is not None and c.verdict not in QUIET}
        news |= {(len(report.fixtures) + i, 0) for i in range(len(report.unreadable))}
        shown, columns = sorted({i for i, _ in news}), sorted({j for _, j in news})
    fit = width if compact else None
    lines = []
    if shown or not compact:
        lines += _target_lines(report, columns, fit)
        lines += _matrix_lines([labels[i] for i in shown], [[rows[i][j] for j in columns] for i in shown],
                               [str(j + 1) for j in columns], width)
    left = _left_out(len(labels) - len(shown), len(labels), len(report.targets) - len(columns), len(report.targets))
    if left:
        lines += [""] * bool(lines) + hanging(left, fit, 2)
    lines.append("")
    lines.append("legend:")
    for word, meaning in LEGEND:
        lines.extend(hanging(f"  {word:<11}  {meaning}", fit, 15))
    notable = [c for c in report.cells if c.verdict in ("unexpected", "changed", "still fails", "fixed")
               and not (compact and c.verdict in QUIET)]
    if notable or report.unreadable:
        lines.append("")
        lines.append("details:")
        for u in report.unreadable:
            lines.extend(hanging("  " + _cut(printable(" ".join(f"{_unreadable_label(u)}: unreadable: "
                                                                  f"{u.problem}".split()))), fit, 4))
        for c in notable:
            lines.extend(hanging("  " + _cut(printable(" ".join(_detail(c).split()))), fit, 4))
    stated = [f for i, f in enumerate(report.fixtures) if f.fixture.statement and i in shown]
    if stated:
        lines.append("")
        lines.append("statements:")
        for f in stated:
            lines.extend(hanging("  " + printable(" ".join(f"{f.label}: {f.fixture.statement}".split())), fit, 4))
    lines.append("")
    lines.extend(hanging(summary(report), fit, 2))
    return "\n".join(lines) + "\n"


def _target_lines(report: Report, columns: Sequence[int], fit: int | None) -> list[str]:
    """The list of the targets shown, by their column's number."""
    lines = ["targets:"]
    digits = len(str(len(report.targets)))
    for j in columns:
        name = report.targets[j]
        level, version = report.levels.get(name, (None, None))
        about = f"{level}" + (f", {version}" if version else "") if level else "not run"
        lines.extend(hanging(f"  {j + 1:>{digits}}  {printable(name)}  ({about})", fit, digits + 4))
    return lines


def _matrix_lines(labels: list[str], rows: list[list[str]], headers: list[str], width: int) -> list[str]:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    first = max([len("fixture")] + [len(label) for label in labels])
    lines = []
    for block in _blocks(widths, width - first - 2):
        lines.append("")
        table = [["fixture", *(headers[i] for i in block)]]
        table += [[label, *(row[i] for i in block)] for label, row in zip(labels, rows)]
        lines.extend(aligned(table).splitlines())
    return lines


def _left_out(rows: int, of_rows: int, columns: int, of_columns: int) -> str:
    """The line that says how many rows and columns the compact matrix left out; none when it left out none."""
    parts = [f"{n} of {total} {what}{'s' * (total != 1)}"
             for n, total, what in ((rows, of_rows, "fixture"), (columns, of_columns, "target")) if n]
    return "" if not parts else (f"left out: {' and '.join(parts)} whose every cell is ok, still fails as recorded, skipped or not run "
            "(-); --wide shows them all")


def _detail(c: Cell) -> str:
    text = f"{c.fixture.label} x {c.target}: {c.verdict}"
    if c.divergences:
        shown = c.shown if c.verdict == "changed" else c.divergences[0]
        text += f": {shown.kind}: {shown.detail}"
    if c.verdict == "fixed":
        text = f"{c.fixture.label} x {c.target}: {fixed_in(c)}"
    if c.verdict in ("changed", "fixed"):
        text += c.recorded_note()
    return text


def _cut(text: str) -> str:
    # A terminal folds a long detail line harmlessly; only a runaway one is cut.
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL - 3] + "..."


def _unreadable_label(unreadable: Unreadable) -> str:
    return shorten(printable(" ".join(str(unreadable.path).split())), MAX_LABEL)


def _blocks(widths: list[int], room: int) -> list[list[int]]:
    """Column indices in groups whose cells fit in ``room`` characters (at least one column each)."""
    blocks: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if blocks[-1] and used + 2 + w > room:
            blocks.append([])
            used = 0
        blocks[-1].append(i)
        used += 2 + w
    return blocks


def summary(report: Report) -> str:
    counts = report.counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS if counts[v] or v in ("ok", "unexpected")]
    if report.unreadable:
        parts.append(f"{len(report.unreadable)} fixture{'s' * (len(report.unreadable) != 1)} unreadable")
    result = "FAIL" if report.exit_code else "pass"
    return (f"{result}: {len(report.fixtures)} fixture{'s' if len(report.fixtures) != 1 else ''} x "
            f"{len(report.targets)} target{'s' if len(report.targets) != 1 else ''}, "
            + ", ".join(parts))


def replay_junit(report: Report) -> str:
    """One testsuite per fixture, one testcase per target that ran or was skipped there.

    Unexpected cells are failures; recorded divergences that still fail are
    skipped with the reason (as pytest writes an expected failure), so the
    XML fails exactly when the exit status does.
    """
    suites = []
    for f in report.fixtures:
        results = []
        for c in (c for c in report.cells if c.fixture is f):
            failure = skipped = output = None
            if c.verdict == "unexpected":
                failure = (c.kind or c.state, f"{c.state}: {c.kind}: {c.detail}",
                           "\n".join(f"{d.kind}: {d.detail}" for d in c.divergences))
            elif c.verdict in ("still fails", "changed", "skipped"):
                skipped = c.reason if c.verdict == "skipped" else f"{c.verdict} (recorded as diverging): {c.kind}"
            elif c.verdict == "fixed":
                output = f"{fixed_in(c)}: recorded as diverging ({c.recorded_kind}), now agrees"
            results.append(Result(f.fixture.name, c.target, c.seconds, failure, skipped, output))
        suites.append(Suite(f.fixture.name, tuple(results), file=str(f.path)))
    for u in report.unreadable:
        failure = ("unreadable", u.problem, u.problem)
        suites.append(Suite(str(u.path), (Result(str(u.path), REFERENCE_NAME, failure=failure),), file=str(u.path)))
    return junit_xml("toolfuzz replay", suites)
