"""``toolfuzz run --report FILE.html``: the morning report as one page to look at.

At the top, the run in figures and its root causes over time (against
seconds and against examples: a long flat end says the run had stopped
finding anything new).  Then the root causes by severity, gravest first,
each a ``<details>`` entry that opens to its commands, its calls side by
side and its timeline (:mod:`toolfuzz.outputs.finding_html`), and after them
the tables the Markdown report has too.  The page is one file: its style is
inline and it loads nothing, so it opens from a CI artifact with no network,
and nothing in it runs (no script).
"""

from __future__ import annotations

from typing import Any

from toolfuzz.outputs.finding_html import entry, text
from toolfuzz.outputs.svg_plot import Point, step_plot
from toolfuzz.severity import Severity

__all__ = ["page", "SEVERITY_ORDER"]

#: The groups, gravest first; a summary without grades (an older run's) goes under the last.
SEVERITY_ORDER = (*(s.value for s in Severity), "ungraded")


def page(summary: dict[str, Any], fixed: list[dict[str, Any]], causes: list[dict[str, Any]],
         blocks: list[tuple[str, Any]]) -> str:
    """The page: ``causes`` are the summary's divergences (each with its ``target``) in the order to show them,
    ``blocks`` the Markdown report's headings, paragraphs and tables."""
    title, intro, *rest = blocks
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{text(title[1])}</title><style>{_STYLE}</style></head><body><main>",
           f"<header><h1>{text(title[1])}</h1><p>{text(intro[1])}</p></header>",
           _figures(summary, fixed, causes),
           '<section id="over-time"><h2>Root causes over time</h2>', _plots(summary, causes), "</section>",
           '<section id="root-causes"><h2>Root causes</h2>', _groups(causes), "</section>",
           '<section id="tables">', _tables(rest), "</section>",
           "</main></body></html>"]
    return "\n".join(out) + "\n"


def _severity(cause: dict[str, Any]) -> str:
    severity = cause.get("severity")
    return severity if severity in SEVERITY_ORDER else "ungraded"


def _figures(summary: dict[str, Any], fixed: list[dict[str, Any]], causes: list[dict[str, Any]]) -> str:
    hits = summary.get("hits", sum(c.get("hits", 0) for c in causes))
    by = {s: sum(_severity(c) == s for c in causes) for s in SEVERITY_ORDER}
    graded = " ".join(f'<span class="sev sev-{s}">{n} {s}</span>' for s, n in by.items() if n)
    cards = [("examples", f"{summary['examples']}"), ("seconds", f"{summary['seconds']:.1f}"),
             ("root causes", f"{len(causes)}"),
             ("new", f"{sum(c.get('file') == 'written' for c in causes)}"), ("fixed", f"{len(fixed)}"),
             ("hits", f"{hits}")]
    out = "".join(f'<div class="card"><div class="figure">{text(v)}</div><div class="what">{text(k)}</div></div>'
                  for k, v in cards)
    return f'<section class="figures">{out}</section>' + (f'<p class="graded">{graded}</p>' if graded else "")


def _plots(summary: dict[str, Any], causes: list[dict[str, Any]]) -> str:
    seen = [c for c in causes if c.get("first_seen")]
    # A root cause's seconds count from when the search began; the run's from before its workers started.
    searching = max(summary["seconds"] - summary.get("startup_seconds", 0.0), 0.0)

    def points(axis: str) -> list[Point]:
        return [Point(float(c["first_seen"][axis]), f"{c['signature']} ({_severity(c)}): example "
                      f"{c['first_seen']['examples']}, {c['first_seen']['seconds']:.1f} s", f"sev-{_severity(c)}")
                for c in seen]

    out = ['<div class="plots">',
           step_plot(points("seconds"), searching, "root causes by seconds", "seconds searching", "root causes"),
           step_plot(points("examples"), float(summary["examples"]), "root causes by examples", "examples",
                     "root causes"),
           "</div>"]
    if seen:
        last = max(c["first_seen"]["examples"] for c in seen)
        share = 100 * last / summary["examples"] if summary["examples"] else 100
        out.append(f'<p class="plateau-note">The last new root cause was met at example {last} of '
                   f"{summary['examples']} ({share:.0f}% into the run)"
                   + (f"; the last {100 - share:.0f}% found nothing new.</p>" if share < 100 else ".</p>"))
    if len(seen) < len(causes):
        out.append(f'<p class="plateau-note">{len(causes) - len(seen)} root cause(s) with no first-seen time '
                   "are not plotted.</p>")
    return "\n".join(out)


def _groups(causes: list[dict[str, Any]]) -> str:
    most = max([c.get("hits", 0) for c in causes] + [0])
    out = []
    for severity in SEVERITY_ORDER:
        mine = [c for c in causes if _severity(c) == severity]
        if severity == "ungraded" and not mine:
            continue
        meaning = Severity(severity).meaning if severity != "ungraded" else "the summary gives no severity"
        out.append(f'<section class="group" id="sev-{severity}"><h3><span class="sev sev-{severity}">{severity}'
                   f'</span> <span class="count">{len(mine)}</span> <span class="meaning">{text(meaning)}</span></h3>')
        out += [entry(c, most) for c in mine] or ['<p class="none">None.</p>']
        out.append("</section>")
    return "\n".join(out)


def _tables(blocks: list[tuple[str, Any]]) -> str:
    out = []
    for kind, body in blocks:
        if kind in ("h1", "h2"):
            out.append(f"<{kind}>{text(body)}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{text(body)}</p>")
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{text(item)}</li>" for item in body) + "</ul>")
        else:
            head, *rows = body
            out.append('<div class="scroll"><table><tr>' + "".join(f"<th>{text(c)}</th>" for c in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{text(c)}</td>" for c in row) + "</tr>" for row in rows)
                       + "</table></div>")
    return "\n".join(out)


_STYLE = """
:root{--bug:#c0392b;--robustness:#c27c0e;--note:#5b6b7c;--ungraded:#7f8c8d;--ink:#1f2933;--muted:#616e7c;
--line:#d9dee4;--soft:#f4f6f8;--accent:#2f6fbf}
*{box-sizing:border-box}
body{margin:0;background:#fbfcfd;color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 32px 60px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:34px 0 12px;padding-bottom:6px;
border-bottom:1px solid var(--line)}h3{font-size:16px;margin:22px 0 10px;display:flex;gap:10px;align-items:center}
h4{font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:18px 0 6px}
header p{color:var(--muted);margin:0}
code,pre,.field,.where{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:12px;margin-top:20px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 16px}
.figure{font-size:24px;font-weight:600}.what{color:var(--muted);font-size:13px}
.graded{display:flex;gap:8px;margin:12px 0 0}
.sev{display:inline-block;border-radius:999px;padding:1px 10px;font-size:12px;font-weight:600;color:#fff;
background:var(--ungraded);white-space:nowrap}
.sev-bug{background:var(--bug)}.sev-robustness{background:var(--robustness)}.sev-note{background:var(--note)}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:16px}
.plot{width:100%;height:auto;background:#fff;border:1px solid var(--line);border-radius:8px}
.plot .axis{stroke:#9aa5b1;stroke-width:1}.plot .grid{stroke:#eef1f4;stroke-width:1}
.plot .steps{fill:none;stroke:var(--accent);stroke-width:2}.plot .plateau{fill:#2f6fbf;fill-opacity:.07}
.plot .point{fill:var(--ungraded);stroke:#fff;stroke-width:1.5}.plot .point.sev-bug{fill:var(--bug)}
.plot .point.sev-robustness{fill:var(--robustness)}.plot .point.sev-note{fill:var(--note)}
.plot text{font-size:11px;fill:var(--muted)}.plot .plot-title{font-size:13px;font-weight:600;fill:var(--ink)}
.plot .empty{font-size:13px}
.plateau-note{color:var(--muted);margin:8px 0 0}
.group .count{font-weight:600}.group .meaning{font-weight:400;color:var(--muted);font-size:13px}
details.cause{background:#fff;border:1px solid var(--line);border-radius:8px;margin:0 0 8px}
details.cause[open]{box-shadow:0 2px 8px rgba(31,41,51,.08)}
details.cause summary{cursor:pointer;padding:9px 14px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
details.cause summary::marker{color:var(--muted)}
.target{font-weight:600}.kind{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;color:var(--muted)}
.new{font-size:11px;font-weight:600;color:var(--accent);border:1px solid var(--accent);border-radius:4px;padding:0 5px}
.hits{margin-left:auto;display:flex;align-items:center;gap:8px;font-size:13px;color:var(--muted);
white-space:nowrap}
.bar{display:inline-block;width:110px;height:8px;background:var(--soft);border-radius:4px;overflow:hidden}
.bar span{display:block;height:100%;background:var(--accent);opacity:.7}
.body{padding:4px 18px 16px;border-top:1px solid var(--line)}
.detail{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;background:var(--soft);padding:8px 10px;
border-radius:6px;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:10px 0;font-size:13px}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.cmd-what{margin:8px 0 2px;font-size:13px;color:var(--muted)}
pre{margin:0;padding:8px 10px;border-radius:6px;overflow:auto}
pre.cmd{background:#1f2933;color:#e4e7eb;white-space:pre-wrap;overflow-wrap:anywhere}
pre.timeline{background:var(--soft);border:1px solid var(--line);max-height:420px;font-size:12px;line-height:1.45}
table.calls{width:100%;table-layout:fixed;border-collapse:separate;border-spacing:8px 6px;margin:0 -8px}
table.calls th{text-align:left;font-size:13px;color:var(--muted);font-weight:600}
table.calls td{vertical-align:top;padding:0}
.call{border:1px solid var(--line);border-radius:6px;padding:6px 10px;background:#fff}
.call.unpaired{border-color:var(--bug);background:#fdf0ee}
.where{color:var(--muted);font-size:12px}.field{overflow-wrap:anywhere}.key{color:var(--muted)}
mark{background:#ffe08a;color:inherit;border-radius:2px;padding:0 1px}
.failure mark{background:#f8d0cb}
.none,.missing{color:var(--muted);font-style:italic;margin:4px 0}
.scroll{overflow-x:auto}
#tables table{border-collapse:collapse;background:#fff;font-size:13px}
#tables td,#tables th{border:1px solid var(--line);padding:4px 9px;text-align:left;vertical-align:top}
#tables th{background:var(--soft)}
"""
