"""The corpus of findings as a whole: merge folders of fixtures, shrink them again, replay them all.

* :func:`merge` brings fixtures from other folders (another machine's run, a
  contributor's findings) into one corpus, one file per root cause, the
  smallest kept.  Files are copied byte for byte, written atomically; one that
  replaces another takes over the statement and recorded ranges it lacks, and
  one a fixture of its target is folded into takes over that one's statement
  when it has none.  A fixture folded in or removed is kept in the one that
  stands for it, as a variant (:func:`_with_variants`): no merge loses a case.
* :func:`minimize` shrinks each fixture again against its recorded target as
  installed now, keeping each step only if the target still diverges with
  the recorded kind.  It removes only what cannot change what the stream
  means (SSE comment lines, network-read boundaries), so the expected
  outcome and the events stay the ones the case was built with: no
  contestant, the reference included, is asked what a smaller stream means.
* :func:`check` replays everything and sorts each recorded target into new,
  still failing, changed, fixed (in which version) or skipped.

The signature of a fixture is the one :mod:`toolfuzz.corpus.findings` names files
by: target, kind and the features left once the plain ones are removed.  A
fixture that records no divergence (written by hand) is known by its content.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from toolfuzz import __version__
from toolfuzz.judge.compare import KINDS, Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.errors import Exit, UsageError
from toolfuzz.corpus.findings import path_for
from toolfuzz.corpus.fixtures import Fixture, Variant, dumps, iter_fixture_paths, write_atomic
from toolfuzz.judge.child import ISOLATED_KINDS, observe_isolated
from toolfuzz.vocabulary import Case, version_key
from toolfuzz.judge.sandbox import Observation, observe
from toolfuzz.corpus.replay import REFERENCE_NAME, Cell, Report, fixed_in, fixed_text, load_fixtures, read_fixtures, \
    replay
from toolfuzz.engine.events import Finding, signature_of
from toolfuzz.engine.known import Known, Root, depths
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.targets.base import Target
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.selftest import PLAIN, SELFTEST

__all__ = ["Entry", "diverging", "signature", "load_corpus", "Merged", "merge", "Minimized", "minimize",
           "shrink", "CheckReport", "check"]


@dataclass(frozen=True)
class Entry:
    """One fixture file of a corpus: where it is, what it holds, and its bytes as they are on disk."""

    path: Path
    fixture: Fixture
    raw: bytes

    @property
    def signature(self) -> str:
        return signature(self.fixture)


def diverging(fixture: Fixture) -> list[tuple[str, str]]:
    """``(target, kind)`` for every target the fixture records as diverging, sorted."""
    out = []
    for target, entry in sorted(fixture.observed.items()):
        if entry.get("verdict") == "diverges" and isinstance(entry.get("kind"), str):
            out.append((target, entry["kind"]))
    return out


def signature(fixture: Fixture) -> str:
    recorded = diverging(fixture)
    # The run that wrote a fixture knew which features were plain for its dialect: its word is kept.
    if isinstance(fixture.found.get("signature"), str) and fixture.found["signature"]:
        given = fixture.found["signature"]
        if recorded and given.startswith(recorded[0][0] + "/"):
            return _era(fixture, recorded[0][0]) + given[len(recorded[0][0]):]
        return given
    if recorded:
        target, kind = recorded[0]
        return signature_of(_era(fixture, target), kind, set(fixture.case.features) - PLAIN_FEATURES,
                            str(fixture.found.get("crash_state") or ""))
    case = fixture.case
    content = json.dumps({"dialect": case.dialect, "reads": [r.hex() for r in case.reads],
                          "expected": case.expected.to_json(), "tools": [t.to_json() for t in case.tools],
                          "limits": case.limits.to_json()}, sort_keys=True)
    return "case/" + hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def load_corpus(paths: list[str]) -> list[Entry]:
    """Every fixture under ``paths``, loaded and checked; one UsageError naming the first bad file and field."""
    loaded = load_fixtures(paths)  # validates everything before anything is written
    entries = []
    for item in loaded:
        try:
            raw = item.path.read_bytes()
        except OSError as e:
            raise UsageError(f"{item.path}: cannot read: {e.strerror or e}") from None
        entries.append(Entry(item.path, item.fixture, raw))
    return entries


# -- merge -------------------------------------------------------------------

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
        state = str(entry.fixture.found.get("crash_state") or "")
        finding = Finding(Target(name=target, fn=_never), Divergence(kind, "", state), entry.fixture.case,
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
    return Root(_era(fixture, target), kind, str(fixture.found.get("crash_state") or ""),
                frozenset(fixture.case.features) - PLAIN_FEATURES)


def _era(fixture: Fixture, target: str) -> str:
    """``target``, or ``target<1.2.0`` for a fixture whose recorded range (``toolfuzz bisect --record``) says
    that release fixed it: a bug of the releases before is a root cause of its own, never folded with one
    the library has now (both plain, or one a variant of the other), nor taken as explaining it."""
    entry = fixture.history.get(target) or {}
    fixed, introduced = entry.get("fixed"), entry.get("introduced")
    if not isinstance(fixed, str) or (isinstance(introduced, str) and version_key(introduced) > version_key(fixed)):
        return target
    return f"{target}<{fixed}"


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


# -- minimize ----------------------------------------------------------------

@dataclass(frozen=True)
class Minimized:
    """What became of one fixture: ``shrunk``, ``minimal`` (nothing smaller fails), ``fixed``, ``skipped``."""

    action: str
    path: Path
    target: str = ""
    kind: str = ""
    before: tuple[int, int, int] | None = None
    after: tuple[int, int, int] | None = None
    detail: str = ""
    tries: int = 0


_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _comments(wire: bytes) -> list[tuple[int, int]]:
    """The byte spans of the wire's comment lines: a line that starts with a colon is ignored by every decoder."""
    return [m.span() for m in _LINE.finditer(wire) if wire.startswith(b":", m.start())]


def _without(wire: bytes, cuts: tuple[int, ...], a: int, b: int) -> tuple[bytes, tuple[int, ...]]:
    """The wire less bytes ``a..b``; a cut inside them goes, a cut after them moves back."""
    gone = b - a
    kept = tuple(c if c <= a else c - gone for c in cuts if not a < c < b)
    return wire[:a] + wire[b:], kept


def _reads(wire: bytes, cuts: tuple[int, ...]) -> tuple[bytes, ...]:
    bounds = (0, *cuts, len(wire))
    return tuple(wire[x:y] for x, y in zip(bounds, bounds[1:]))


def shrink(case: Case, still_fails: Callable[[Case], bool], deadline: float) -> tuple[Case, int]:
    """The smallest case a greedy pass reaches from ``case`` on which ``still_fails`` holds, and the tries it took.

    Each pass tries removing one comment line, then one read boundary, last
    to first; a removal is kept when the smaller stream still fails, and the
    passes repeat until none removes anything or time is up.  Neither
    changes which events the stream dispatches (a read is never a delta), so
    the case's expected outcome and events are kept as they were built.
    Comments stay where the bound on stream bytes decides the outcome.
    """
    best, tries = case, 0
    error = case.expected.error
    bytes_count = error is not None and error.code == "stream_too_large"

    def attempt(wire: bytes, cuts: tuple[int, ...]) -> bool:
        nonlocal best, tries
        if time.monotonic() >= deadline:
            return False
        tries += 1
        candidate = replace(best, reads=_reads(wire, cuts))
        if candidate.size < best.size and still_fails(candidate):
            best = candidate
            return True
        return False

    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        if not bytes_count:
            for i in reversed(range(len(_comments(best.wire)))):
                spans = _comments(best.wire)
                if i < len(spans) and attempt(*_without(best.wire, best.cuts, *spans[i])):
                    progress = True
        for i in reversed(range(len(best.cuts))):
            if i < len(best.cuts):
                progress |= attempt(best.wire, best.cuts[:i] + best.cuts[i + 1:])
    return best, tries


def minimize(paths: list[str], timeout: float = 5.0, budget: float = 30.0, write: bool = True,
             targets: dict[str, Target] | None = None,
             on_done: Callable[[Minimized], None] = lambda m: None) -> list[Minimized]:
    """Shrink every fixture under ``paths`` again against its recorded target, as installed now."""
    entries = load_corpus(paths)
    if targets is None:
        targets = {t.name: t for t in (PLAIN, *SELFTEST)}
        if any(name not in targets for e in entries for name, _ in diverging(e.fixture)):
            targets = builtin_targets({name for e in entries for name, _ in diverging(e.fixture)})
    done = []
    for entry in entries:
        result = _minimize_one(entry, targets, timeout, budget, write)
        on_done(result)
        done.append(result)
    return done


def _minimize_one(entry: Entry, targets: dict[str, Target], timeout: float, budget: float,
                  write: bool) -> Minimized:
    fixture, path = entry.fixture, entry.path
    recorded = diverging(fixture)
    if not recorded:
        return Minimized("skipped", path, detail="records no divergence to keep")
    name, kind = recorded[0]
    target = targets.get(name)
    if target is None or name == REFERENCE_NAME:
        return Minimized("skipped", path, name, kind, detail="not an installed built-in target")
    case = fixture.case

    def kinds(candidate: Case) -> tuple[set[str], Observation, list[Divergence]]:
        if kind in ISOLATED_KINDS:
            # It killed its process once: each try runs in a child, or the first would end this one.
            result = observe_isolated(target, candidate, None, timeout)
            if isinstance(result, Divergence):
                return {result.kind}, Observation(), [result]
            observation = result
        else:
            observation = observe(target, candidate, None, timeout)
        found = compare(candidate.expected, observation, target, expected_events(candidate))
        return {d.kind for d in found}, observation, found

    met, _, first = kinds(case)
    if kind not in met:
        return Minimized("fixed", path, name, kind, case.size, detail=fixed_text(fixture, name, target.version))
    smaller, tries = shrink(case, lambda c: kind in kinds(c)[0], time.monotonic() + budget)
    if smaller.size >= case.size:
        # A raise written before crash states were recorded gets its own, so that merging a night's
        # findings into the corpus folds the same raise into it instead of adding it beside it.
        state = next(d.state for d in first if d.kind == kind)
        if state and not fixture.found.get("crash_state"):
            if write:
                write_atomic(path, dumps(replace(fixture, found=_with_state(fixture.found, name, kind, state))))
            return Minimized("minimal", path, name, kind, case.size, case.size, tries=tries,
                             detail=f"crash state recorded: {state}")
        return Minimized("minimal", path, name, kind, case.size, case.size, tries=tries)
    if write:
        _, observation, found = kinds(smaller)
        divergence = next(d for d in found if d.kind == kind)
        write_atomic(path, dumps(_shrunk_fixture(fixture, smaller, target, divergence, observation, case)))
    return Minimized("shrunk", path, name, kind, case.size, smaller.size, tries=tries)


def _shrunk_fixture(fixture: Fixture, case: Case, target: Target, divergence: Divergence,
                    observation: Observation, before: Case) -> Fixture:
    observed = dict(fixture.observed)
    # A death has no observation of its own: it is what the target did (as the supervisor records it).
    seen = {divergence.kind: divergence.detail} if divergence.kind in ISOLATED_KINDS else observation.to_json()
    entry = {k: v for k, v in observed[target.name].items() if k != "output"}  # the old case's, not this one's
    observed[target.name] = {**entry, "detail": divergence.detail,
                             "observation": seen, "level": target.level, "version": target.version}
    if observation.output:
        observed[target.name]["output"] = observation.output.to_json()
    found: dict[str, Any] = {**{k: v for k, v in fixture.found.items() if k != "unshrunk"}, "minimized": {
        "by": "toolfuzz corpus minimize", "toolfuzz": __version__, "version": target.version,
        "from": {"calls": before.size[0], "reads": before.size[1], "bytes": before.size[2]}}}
    if divergence.state and not found.get("crash_state"):
        found = _with_state(found, target.name, divergence.kind, divergence.state)
    description = fixture.description
    if description.startswith(KINDS[divergence.kind]):  # written by a run: its detail is now the new one's
        description = f"{KINDS[divergence.kind]}. {divergence.detail}"
    return replace(fixture, case=case, observed=observed, found=found, description=description)


def _with_state(found: dict[str, Any], target: str, kind: str, state: str) -> dict[str, Any]:
    """``found`` with a raise's crash state, and the state in the signature the run wrote (``kind[state]``)."""
    out = {**found, "crash_state": state}
    given = found.get("signature")
    if isinstance(given, str) and given.startswith(f"{target}/{kind}/"):
        out["signature"] = signature_of(target, kind, given[len(f"{target}/{kind}/"):].split("+"), state)
    return out


# -- check -------------------------------------------------------------------

#: The classes of :func:`check`, in the order it prints them.
CLASSES = ("reference disagrees", "must fail, passes", "new", "changed", "still failing", "fixed", "skipped")


@dataclass(frozen=True)
class CheckReport:
    report: Report
    #: class -> cells, in CLASSES order; the reference's agreeing cells and plain ``ok`` cells are not listed.
    classes: dict[str, list[Cell]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """1 when the reference disagrees with a fixture or a self-test fixture no longer fails; else 2 when a
        fixture could not be read; else 0."""
        if self.classes["reference disagrees"] or self.classes["must fail, passes"]:
            return Exit.FOUND
        return Exit.USAGE if self.report.unreadable else Exit.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "toolfuzz": __version__,
            "fixtures": len(self.report.fixtures),
            "classes": {name: [_cell_json(c) for c in cells] for name, cells in self.classes.items()},
            "unreadable": [u.to_json() for u in self.report.unreadable],
            "exit": self.exit_code,
        }


def _cell_json(cell: Cell) -> dict[str, Any]:
    doc = cell.to_json()
    doc["statement"] = cell.fixture.fixture.statement or None
    if cell.verdict == "fixed":
        doc["fixed_in"] = fixed_in(cell)
    return doc


def classify(cell: Cell, selftest: set[str]) -> str | None:
    if cell.target == REFERENCE_NAME:
        return "reference disagrees" if cell.unexpected else None
    if cell.verdict == "unexpected":
        return "new"
    if cell.verdict == "fixed":
        return "must fail, passes" if cell.target in selftest else "fixed"
    return {"still fails": "still failing", "changed": "changed", "skipped": "skipped"}.get(cell.verdict)


def check(paths: list[str], given: list[Target] | None = None, timeout: float = 5.0) -> CheckReport:
    """Replay every fixture under ``paths`` and sort what each recorded target does now; a fixture that cannot
    be read is reported (``report.unreadable``), and the others replayed."""
    loaded, unreadable = read_fixtures(paths)
    report = replay(loaded, given, timeout, unreadable)
    selftest = {t.name for t in SELFTEST}  # mutants: each of their fixtures must fail
    classes: dict[str, list[Cell]] = {name: [] for name in CLASSES}
    for cell in report.cells:
        name = classify(cell, selftest)
        if name is not None:
            classes[name].append(cell)
    return CheckReport(report, classes)
