"""``toolfuzz corpus agree``'s report: by source, how the reference reads each capture against its tests' reading."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from toolfuzz.corpus.agreement import Verdict
from toolfuzz.outputs.tables import aligned

__all__ = ["Tally", "tally", "render_agreement", "render_agreement_markdown"]

_DIALECTS = {"openai-chat": "chat", "openai-responses": "responses", "anthropic": "anthropic"}


@dataclass
class Tally:
    """One source's responses: how many, of which dialects, with how many client calls, and how they were read."""

    repository: str
    licence: str
    recordings: set[str] = field(default_factory=set)
    dialects: set[str] = field(default_factory=set)
    responses: int = 0
    calls: int = 0
    agree: int = 0
    ambiguous: int = 0
    differ: list[Verdict] = field(default_factory=list)


def tally(verdicts: Iterable[Verdict]) -> tuple[list[Tally], list[Verdict]]:
    """The verdicts by source (in the order met), and the ambiguous ones, one per recording."""
    sources: dict[str, Tally] = {}
    ambiguous: dict[str, Verdict] = {}
    for v in verdicts:
        t = sources.setdefault(v.entry.repository, Tally(v.entry.repository, v.entry.licence))
        t.recordings.add(v.entry.file)
        t.responses += 1
        if v.dialect:
            t.dialects.add(_DIALECTS.get(v.dialect, v.dialect))
        if v.expected is not None:
            t.calls += len(v.expected.calls)
        if not v.agrees:
            t.differ.append(v)
        elif v.ambiguous:
            t.ambiguous += 1
            ambiguous.setdefault(f"{v.entry.manifest.parent.name}/{v.entry.file}", v)
        else:
            t.agree += 1
    return list(sources.values()), list(ambiguous.values())


def render_agreement(verdicts: Iterable[Verdict]) -> str:
    sources, ambiguous = tally(verdicts)
    rows = [["source", "dialects", "recordings", "responses", "calls", "agree", "ambiguous", "differ"]]
    for t in sources:
        rows.append([t.repository, ", ".join(sorted(t.dialects)), str(len(t.recordings)), str(t.responses),
                     str(t.calls), str(t.agree), str(t.ambiguous), str(len(t.differ))])
    out = [aligned(rows, rule=True)]
    for v in ambiguous:
        out.append("ambiguous  " + _cut(f"{v.entry.recording}: {v.entry.ambiguity}") + "\n")
    for t in sources:
        for v in t.differ:
            what = v.problem or f"expected {v.expected.to_json()}, the reference reads {v.read.to_json()}"
            out.append("differs  " + _cut(f"{v.entry.recording} response {v.part + 1}"
                                          + (f" ({v.where})" if v.where else "") + f": {what}") + "\n")
    responses = sum(t.responses for t in sources)
    differ = sum(len(t.differ) for t in sources)
    out.append(f"{'FAIL' if differ else 'pass'}: {responses} responses from {len(sources)} sources; the reference "
               f"reads {responses - differ} as their tests do ({sum(t.ambiguous for t in sources)} through a "
               f"documented ambiguity), {differ} otherwise\n")
    return "".join(out)


def render_agreement_markdown(verdicts: Iterable[Verdict]) -> str:
    """The per-source table as markdown, for a corpus's README."""
    sources, ambiguous = tally(verdicts)
    lines = ["| source | licence | dialects | recordings | responses | client calls | read as the tests read "
             "them | through a documented ambiguity | otherwise |", "|---|---|---|---|---|---|---|---|---|"]
    for t in sources:
        lines.append(f"| {t.repository} | {t.licence.split(' (')[0]} | {', '.join(sorted(t.dialects))} | "
                     f"{len(t.recordings)} | {t.responses} | {t.calls} | {t.agree} | {t.ambiguous} | "
                     f"{len(t.differ)} |")
    total = [sum(getattr(t, k) for t in sources) for k in ("responses", "calls", "agree", "ambiguous")]
    lines.append(f"| **all {len(sources)}** | | | {sum(len(t.recordings) for t in sources)} | {total[0]} | "
                 f"{total[1]} | {total[2]} | {total[3]} | {sum(len(t.differ) for t in sources)} |")
    return "\n".join(lines) + "\n"


def _cut(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
