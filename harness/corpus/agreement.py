"""Whether the reference reads each real capture as the capture's own test suite does.

Theory of operation
-------------------

A folder of captures (findings/captures/, or a user's held-out set) holds one
folder per source, each with the source's ``LICENSE``, its recordings and a
``captures.toml``: the ``[source]`` (repository, commit, licence) and one
``[[capture]]`` per recording, with what the source's tests read from it.
For each response of the recording, in order:

* ``calls``: the client calls, each ``[name, arguments]``, or ``[name,
  arguments, "incomplete"]`` for one the stream never finished (its
  arguments are then not compared: a test may show a partial parse of them);
* ``ends`` (optional): the stream error each response ends with (``""``:
  none), as the contract's codes name it;
* ``ambiguity`` and ``reads_as`` (optional, together): where the contract
  reads the stream otherwise than the source's tests (a documented
  ambiguity), why, and what the reference reads instead.  The reference is
  held to ``reads_as`` there, so a change of its reading is still caught.

:func:`agreement` replays every response on the reference and says, for each,
whether it reads what is expected.  A manifest that cannot be used is one
:class:`ManifestError` naming the file and the field.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from toolfuzz.corpus.captures import Capture, capture_features, capture_file, fixture_of
from toolfuzz.corpus.fixtures import CAPTURES_MANIFEST, Fixture
from toolfuzz.corpus.recordings import RecordingError
from toolfuzz.targets.reference import assemble
from toolfuzz.severity import SERVERS
from toolfuzz.vocabulary import Outcome

__all__ = ["MANIFEST", "Entry", "Expected", "ManifestError", "Verdict", "agreement", "entries", "imported_fixture",
           "manifested", "read_of"]

#: The manifest each source's folder holds.
MANIFEST = CAPTURES_MANIFEST
_INCOMPLETE = "incomplete"


class ManifestError(ValueError):
    """A captures.toml that cannot be used: the file, the field, and why."""

    def __init__(self, source: str, field: str, message: str) -> None:
        self.source, self.field, self.message = source, field, message
        super().__init__(f"{source}: {field}: {message}" if field else f"{source}: {message}")


@dataclass(frozen=True)
class Expected:
    """What one response is read as: its calls (name, arguments, status) and the error it ends with."""

    calls: tuple[tuple[str, Any, str], ...]
    ends: str = ""

    def matches(self, other: "Expected") -> bool:
        if self.ends != other.ends or len(self.calls) != len(other.calls):
            return False
        return all(name == n and status == s and (status == _INCOMPLETE or arguments == a)
                   for (name, arguments, status), (n, a, s) in zip(self.calls, other.calls))

    def to_json(self) -> dict[str, Any]:
        return {"calls": [list(c) for c in self.calls], **({"ends": self.ends} if self.ends else {})}


@dataclass(frozen=True)
class Entry:
    """One recording of a manifest: where it is, where it came from, and what each of its responses reads as."""

    manifest: Path
    file: str
    repository: str
    commit: str
    licence: str
    path: str
    shape: str
    expected_from: str
    responses: tuple[Expected, ...]
    ambiguity: str = ""
    #: With an ambiguity: what the reference reads instead, per response.
    reads_as: tuple[Expected, ...] = ()
    #: The server that sent it (toolfuzz.severity.SERVERS), or "" where nobody says.
    server: str = ""

    def provenance(self) -> dict[str, str]:
        """Where it came from, as an imported fixture's ``found`` keeps it."""
        return {"repository": self.repository, "commit": self.commit, "licence": self.licence, "path": self.path}

    @property
    def recording(self) -> Path:
        return self.manifest.parent / self.file

    @property
    def held_to(self) -> tuple[Expected, ...]:
        return self.reads_as or self.responses


@dataclass(frozen=True)
class Verdict:
    """One response of one recording, replayed on the reference."""

    entry: Entry
    part: int
    where: str
    dialect: str
    expected: Expected | None
    read: Expected | None
    #: Why it could not be judged (an unreadable body, a count of responses that differs), or "".
    problem: str = ""

    @property
    def agrees(self) -> bool:
        return not self.problem and self.expected is not None and self.read is not None \
            and self.expected.matches(self.read)

    @property
    def ambiguous(self) -> bool:
        """Read as the contract reads it where the source's tests read it otherwise (a documented ambiguity)."""
        entry = self.entry
        return bool(entry.reads_as) and 0 <= self.part < len(entry.responses) \
            and entry.reads_as[self.part] != entry.responses[self.part]


def read_of(outcome: Outcome) -> Expected:
    """An outcome as a manifest writes it: arguments parsed (a blank text is ``{}``, as the contract says)."""
    calls = []
    for call in outcome.calls:
        try:
            arguments = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            arguments = call.arguments
        calls.append((call.name, arguments, "complete" if call.status == "complete" else _INCOMPLETE))
    return Expected(tuple(calls), outcome.error.code if outcome.error else "")


def entries(paths: list[str | Path]) -> list[Entry]:
    """Every recording the manifests under ``paths`` (folders searched for captures.toml, or manifests) name."""
    manifests: list[Path] = []
    for p in map(Path, paths):
        manifests.extend(sorted(p.rglob(MANIFEST)) if p.is_dir() else [p])
    if not manifests:
        raise ManifestError(" ".join(map(str, paths)), "", f"no {MANIFEST} here")
    return [e for m in manifests for e in _entries(m)]


def manifested(paths: list[str | Path]) -> dict[Path, Entry]:
    """The manifest entry of each recording under ``paths`` that a captures.toml names: the captures.toml of each
    folder given or under it, and of each file's own folder."""
    manifests: set[Path] = set()
    for p in map(Path, paths):
        if p.is_dir():
            manifests.update(p.rglob(MANIFEST))
        elif (p.parent / MANIFEST).is_file():
            manifests.add(p.parent / MANIFEST)
    return {e.recording.resolve(): e for m in sorted(manifests) for e in _entries(m)}


def imported_fixture(capture: Capture, entry: Entry | None, server: str = "",
                     provenance: dict[str, str] | None = None) -> Fixture:
    """The fixture of one captured response, as ``toolfuzz corpus import`` writes it: with the provenance, the
    server and the ambiguity its manifest ``entry`` gives it, or (none naming it) those given here."""
    if entry is None:
        return fixture_of(capture, provenance, capture_features(capture, server))
    ambiguous = capture.part < len(entry.reads_as) and entry.reads_as[capture.part] != entry.responses[capture.part]
    return fixture_of(capture, entry.provenance(), capture_features(capture, entry.server, ambiguous))


def agreement(paths: list[str | Path]) -> Iterator[Verdict]:
    """Each response of each recording the manifests name, read by the reference and judged."""
    for entry in entries(paths):
        try:
            captured = capture_file(entry.recording)
        except RecordingError as e:
            yield Verdict(entry, 0, "", "", None, None, f"unreadable: {e.message}")
            continue
        held = entry.held_to
        captures: list[Capture] = list(captured.captures)
        for e in captured.unread:
            yield Verdict(entry, -1, e.where, "", None, None, f"unreadable: {e.message}")
        if len(captures) != len(held):
            yield Verdict(entry, 0, "", captures[0].dialect if captures else "", None, None,
                          f"{len(captures)} responses recorded, {len(held)} in the manifest")
            continue
        for capture, expected in zip(captures, held):
            read = read_of(assemble([capture.wire], dialect=capture.dialect))
            yield Verdict(entry, capture.part, capture.where, capture.dialect, expected, read)


def _entries(manifest: Path) -> list[Entry]:
    name = str(manifest)
    try:
        doc = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except OSError as e:
        raise ManifestError(name, "", e.strerror or str(e)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ManifestError(name, "", f"not TOML: {e}") from None
    source = doc.get("source")
    if type(source) is not dict:
        raise ManifestError(name, "source", "missing: a [source] table with repository, commit and licence")
    for key in ("repository", "commit", "licence"):
        if not isinstance(source.get(key), str) or not source[key]:
            raise ManifestError(name, f"source.{key}", "missing or not a string")
    if not (manifest.parent / "LICENSE").is_file():
        raise ManifestError(name, "source.licence", f"no LICENSE beside it ({manifest.parent / 'LICENSE'})")
    captures = doc.get("capture")
    if type(captures) is not list or not captures:
        raise ManifestError(name, "capture", "missing: one [[capture]] per recording")
    out = []
    for n, raw in enumerate(captures):
        where = f"capture[{n}]"
        for key in ("file", "path", "shape", "expected_from"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise ManifestError(name, f"{where}.{key}", "missing or not a string")
        if not (manifest.parent / raw["file"]).is_file():
            raise ManifestError(name, f"{where}.file", f"no such recording: {manifest.parent / raw['file']}")
        responses = _responses(name, where, raw, "calls", raw.get("ends"))
        ambiguity = raw.get("ambiguity", "")
        reads_as = ()
        if "reads_as" in raw:
            if not isinstance(ambiguity, str) or not ambiguity:
                raise ManifestError(name, f"{where}.reads_as", "given without an ambiguity saying why")
            reads_as = _responses(name, where, raw, "reads_as", raw.get("reads_as_ends", raw.get("ends")))
        server = raw.get("server", "")
        if server and server not in SERVERS:
            raise ManifestError(name, f"{where}.server", f"{server!r} is not one of {', '.join(sorted(SERVERS))}")
        out.append(Entry(manifest, raw["file"], source["repository"], source["commit"], source["licence"],
                         raw["path"], raw["shape"], raw["expected_from"], responses, ambiguity, reads_as, server))
    return out


def _responses(name: str, where: str, raw: dict[str, Any], key: str, ends: Any) -> tuple[Expected, ...]:
    responses = raw.get(key)
    if type(responses) is not list:
        raise ManifestError(name, f"{where}.{key}", "missing: a list of calls per response")
    if ends is None:
        ends = [""] * len(responses)
    if type(ends) is not list or len(ends) != len(responses) or not all(isinstance(e, str) for e in ends):
        raise ManifestError(name, f"{where}.ends", f"not a list of {len(responses)} error codes")
    out = []
    for r, (calls, end) in enumerate(zip(responses, ends)):
        if type(calls) is not list:
            raise ManifestError(name, f"{where}.{key}[{r}]", "not a list of calls")
        parsed = []
        for c, call in enumerate(calls):
            if (type(call) is not list or len(call) not in (2, 3) or not isinstance(call[0], str)
                    or (len(call) == 3 and call[2] != _INCOMPLETE)):
                raise ManifestError(name, f"{where}.{key}[{r}][{c}]",
                                    'not [name, arguments] or [name, arguments, "incomplete"]')
            parsed.append((call[0], call[1], call[2] if len(call) == 3 else "complete"))
        out.append(Expected(tuple(parsed), end))
    return tuple(out)
