"""Merging folders of fixtures into one corpus (``toolfuzz corpus merge``): one file per root cause, the smallest kept.

Fixtures come from other folders (another machine's run, a contributor's findings).  Files are copied byte for
byte, written atomically; one that replaces another takes over the statement and recorded ranges it lacks, and
one a fixture of its target is folded into takes over that one's statement when it has none.  A fixture folded
in or removed is kept in the one that stands for it, as a variant (:func:`_with_variants`): no merge loses a
case.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolfuzz.judge.compare import Divergence
from toolfuzz.corpus.findings import path_for
from toolfuzz.corpus.fixtures import Fixture, Variant, dumps, iter_fixture_paths, write_atomic
from toolfuzz.judge.observation import Observation
from toolfuzz.engine.events import Finding
from toolfuzz.engine.known import Known, Root, depths
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.targets.base import Target
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.corpus.entries import Entry, diverging, era_name, load_corpus

__all__ = ["Merged", "merge", "destination", "root_of"]


@dataclass(frozen=True)
class Merged:
    """What became of one incoming fixture: ``added``, ``replaced`` (it was smaller) or ``kept`` (it was not)."""

    action: str
    path: Path
    source: Path
    signature: str
    detail: str = ""


def _never(_: Any) -> Any:
    raise AssertionError("a placeholder target is never run")


def destination(into: Path, entry: Entry, given_root: Path | None, beside: dict[str, Path] | None = None) -> Path:
    """Where a new fixture goes: beside the corpus's fixtures of its target where the corpus keeps them in one
    folder as ``<target>--<kind>--<features>.json`` (``beside``: findings/ keeps a library's targets so), else
    its place under the folder it came from, or else the name a run would give it."""
    target = _target_of(entry)
    if beside and target in beside:
        return beside[target] / f"{target}--{destination(into, entry, None).name}"
    if given_root is not None:
        try:
            return into / entry.path.resolve().relative_to(given_root.resolve())
        except ValueError:
            pass
    recorded = diverging(entry.fixture)
    if recorded:
        target, kind = recorded[0]
        divergence = Divergence(kind, "", entry.fixture.crash_state)
        finding = Finding(Target(name=target, fn=_never), divergence, entry.fixture.case,
                          Observation(), PLAIN_FEATURES)
        return path_for(into, finding)
    return into / entry.path.name


def _free(path: Path) -> Path:
    """``path``, or ``name-2.json``, ``name-3.json``... when another case already has that name."""
    n, candidate = 2, path
    while candidate.exists():
        candidate, n = path.with_name(f"{path.stem}-{n}{path.suffix}"), n + 1
    return candidate


def root_of(fixture: Fixture) -> Root | None:
    """The root cause a diverging fixture records: target, kind, crash state and its features."""
    recorded = diverging(fixture)
    if not recorded:
        return None
    target, kind = recorded[0]
    return Root(era_name(fixture, target), kind, fixture.crash_state, frozenset(fixture.case.features) - PLAIN_FEATURES)


def merge(sources: list[str], into: Path) -> list[Merged]:
    """Merge the fixtures under ``sources`` into the corpus at ``into``: one per root cause.

    The rule a run folds its divergences by (:mod:`toolfuzz.engine.known`): a fixture with all the
    features of one already there for the same target, kind and crash state (or a raise from the same
    crash state), or for the built-in target its own builds on, is ``folded`` into it (not written), and
    so is one of another kind that is a variant of a root cause there;
    one with strictly fewer features than some already there replaces them (their files are removed,
    and it says which); one with the same signature replaces it only when smaller.  A new one goes where
    :func:`destination` says: in the corpus's layout where it has one for the target.
    """
    into_files = {os.path.realpath(p) for p in iter_fixture_paths([str(into)])} if into.is_dir() else set()
    have: dict[str, Entry] = {}
    beside: dict[str, Path] = {}
    for entry in load_corpus([str(into)]) if into_files else []:
        if entry.signature not in have or entry.fixture.case.size < have[entry.signature].fixture.case.size:
            have[entry.signature] = entry
        target = _target_of(entry)
        if target and entry.path.name.startswith(f"{target}--"):
            beside.setdefault(target, entry.path.parent)
    incoming: list[tuple[Entry, Path | None]] = []
    for given in sources:
        root = Path(given) if Path(given).is_dir() else None
        incoming.extend((e, root) for e in load_corpus([given]) if os.path.realpath(e.path) not in into_files)
    # The most general first, so that a fixture is folded into the root cause it shows, not into a
    # more particular one that a later, more general fixture would replace; a target others build on
    # before them, so that what both show is kept under it.
    below = _builds_on([e for e, _ in incoming])
    order = depths(below)
    incoming.sort(key=lambda item: (order.get(_target_of(item[0]), 0), len(item[0].fixture.case.features)))
    done: list[Merged] = []
    for entry, root in incoming:
        sig, size = entry.signature, entry.fixture.case.size
        old = have.get(sig)
        mine = root_of(entry.fixture)
        if old is None and mine is not None:
            general = _more_general(have, mine, below.get(mine.target, ()))
            if general is not None:
                detail = f"into {general.signature}"
                kept = _with_variants(general, [entry])
                if entry.fixture.statement and not general.fixture.statement and _target_of(general) == mine.target:
                    # The same root cause of the same target: what a person wrote of it stays with it.
                    fixture = replace(kept.fixture, statement=entry.fixture.statement)
                    kept = Entry(general.path, fixture, dumps(fixture).encode("utf-8"))
                    detail += ", its statement carried over"
                _rewrite(have, general, kept)
                done.append(Merged("folded", general.path, entry.path, sig, detail))
                continue
            variant = _variant_of(have, mine, below.get(mine.target, ()))
            if variant is not None:
                _rewrite(have, variant, _with_variants(variant, [entry]))
                done.append(Merged("folded", variant.path, entry.path, sig,
                                   f"into {variant.signature} (a variant of it, as {mine.kind})"))
                continue
            replaced = _less_general(have, mine)
            entry = _with_variants(_carried(entry, replaced), replaced)
            for other in replaced:
                other.path.unlink(missing_ok=True)
                del have[other.signature]
                done.append(Merged("removed", other.path, entry.path, other.signature, f"replaced by {sig}"))
        if old is None:
            path = _free(destination(into, entry, root, beside))
            write_atomic(path, entry.raw)
            done.append(Merged("added", path, entry.path, sig))
        elif size < old.fixture.case.size:
            entry = _with_variants(_carried(entry, [old]), [old])
            write_atomic(old.path, entry.raw)
            done.append(Merged("replaced", old.path, entry.path, sig, f"smaller: {_size(size)} < "
                                                                       f"{_size(old.fixture.case.size)}"))
            path = old.path
        else:
            _rewrite(have, old, _with_variants(old, [entry]))  # what was folded into the one left out stays
            done.append(Merged("kept", old.path, entry.path, sig, f"as small or smaller: {_size(old.fixture.case.size)}"
                                                                    f" <= {_size(size)}"))
            continue
        have[sig] = Entry(path, entry.fixture, entry.raw)
    return done


def _carried(entry: Entry, replaced: list[Entry]) -> Entry:
    """``entry`` with the statement and the recorded ranges of the fixtures it replaces, where it has none.

    What it replaces is the same root cause (same target, kind and crash state, fewer features, or a
    smaller case of the same signature): what a person wrote of it and the releases it was bisected
    over stay with it, so that a corpus derived again from a run's raw output loses neither.
    """
    statement = entry.fixture.statement or next((e.fixture.statement for e in replaced if e.fixture.statement), "")
    history = entry.fixture.history or next((e.fixture.history for e in replaced if e.fixture.history), {})
    if statement == entry.fixture.statement and history == entry.fixture.history:
        return entry
    fixture = replace(entry.fixture, statement=statement, history=history)
    return Entry(entry.path, fixture, dumps(fixture).encode("utf-8"))


def _with_variants(kept: Entry, folded: list[Entry]) -> Entry:
    """``kept`` holding each of ``folded`` as a variant (its signature, name, statement and case), and their own
    variants: one per signature, the smallest case of each, none under ``kept``'s own signature.

    A fixture a merge folds or removes is the same root cause met another way; its file goes (or never
    comes in), but what it held stays in the one kept, so that a fold no one meant is undone by reading it.
    """
    by_signature = {v.signature: v for v in kept.fixture.variants}
    for entry in folded:
        fixture = entry.fixture
        for variant in (Variant(entry.signature, fixture.case, fixture.name, fixture.statement), *fixture.variants):
            old = by_signature.get(variant.signature)
            if variant.signature == kept.signature or (old is not None and old.case.size <= variant.case.size):
                continue
            if old is not None and not variant.statement:
                variant = replace(variant, statement=old.statement)
            by_signature[variant.signature] = variant
    variants = tuple(sorted(by_signature.values(), key=lambda v: v.signature))
    if variants == kept.fixture.variants:
        return kept
    fixture = replace(kept.fixture, variants=variants)
    return Entry(kept.path, fixture, dumps(fixture).encode("utf-8"))


def _rewrite(have: dict[str, Entry], before: Entry, after: Entry) -> None:
    """The corpus file of ``before`` written again as ``after``, when anything changed."""
    if after is not before:
        write_atomic(before.path, after.raw)
        have[before.signature] = after


def _more_general(have: dict[str, Entry], mine: Root, builds_on: tuple[str, ...]) -> Entry | None:
    for entry in have.values():
        theirs = root_of(entry.fixture)
        if theirs is not None and Known([theirs]).explaining(*mine.key, mine.features, builds_on) is not None:
            return entry
    return None


def _variant_of(have: dict[str, Entry], mine: Root, builds_on: tuple[str, ...]) -> Entry | None:
    """The corpus fixture whose root cause ``mine`` is a variant of (:meth:`Known.variant_of`), if any."""
    roots = {root: entry for entry in have.values() if (root := root_of(entry.fixture)) is not None}
    found = Known(roots).variant_of(*mine.key, mine.features, builds_on)
    return None if found is None else roots[found]


def _target_of(entry: Entry) -> str:
    recorded = diverging(entry.fixture)
    return recorded[0][0] if recorded else ""


def _builds_on(entries: list[Entry]) -> dict[str, tuple[str, ...]]:
    """For each built-in target the fixtures record: the targets it builds on (``Target.builds_on``)."""
    names = {_target_of(e) for e in entries} - {""}
    return {name: t.builds_on for name, t in builtin_targets(names).items() if name in names and t.builds_on}


def _less_general(have: dict[str, Entry], mine: Root) -> list[Entry]:
    out = []
    for entry in have.values():
        theirs = root_of(entry.fixture)
        if theirs is not None and theirs.key == mine.key and mine.features < theirs.features:
            out.append(entry)
    return out


def _size(size: tuple[int, int, int]) -> str:
    calls, reads, nbytes = size
    return f"{calls} call{'s' if calls != 1 else ''}, {reads} read{'s' if reads != 1 else ''}, {nbytes} bytes"
