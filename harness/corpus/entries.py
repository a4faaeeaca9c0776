"""A corpus's fixtures as entries: each file, what it holds and its bytes, and the signature it is known by.

The signature of a fixture is the one :mod:`toolfuzz.corpus.findings` names files by: target, kind and the
features left once the plain ones are removed.  A fixture that records no divergence (written by hand) is known
by its content.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import Fixture
from toolfuzz.vocabulary import version_key
from toolfuzz.corpus.replay import load_fixtures
from toolfuzz.engine.events import signature_of
from toolfuzz.strategies import PLAIN_FEATURES

__all__ = ["Entry", "diverging", "signature", "load_corpus", "era_name"]


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
            return era_name(fixture, recorded[0][0]) + given[len(recorded[0][0]):]
        return given
    if recorded:
        target, kind = recorded[0]
        return signature_of(era_name(fixture, target), kind, set(fixture.case.features) - PLAIN_FEATURES,
                            fixture.crash_state)
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



def era_name(fixture: Fixture, target: str) -> str:
    """``target``, or ``target<1.2.0`` for a fixture whose recorded range (``toolfuzz bisect --record``) says
    that release fixed it: a bug of the releases before is a root cause of its own, never folded with one
    the library has now (both plain, or one a variant of the other), nor taken as explaining it."""
    entry = fixture.history.get(target) or {}
    fixed, introduced = entry.get("fixed"), entry.get("introduced")
    if not isinstance(fixed, str) or (isinstance(introduced, str) and version_key(introduced) > version_key(fixed)):
        return target
    return f"{target}<{fixed}"
