"""Fixture files edited for the corpus tests: a folder copied, a fixture bloated, one given recorded results."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from toolfuzz.corpus.fixtures import dumps, load, write_atomic


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def bloated(path: Path, out: Path) -> Path:
    """The fixture at ``path`` with keep-alive comments before every event and its wire cut into 40-byte reads."""
    fixture = load(path)
    wire = b": keep-alive\n" + fixture.case.wire.replace(b"\n\n", b"\n\n: keep-alive\n")
    reads = tuple(wire[i:i + 40] for i in range(0, len(wire), 40))
    # What the stream means is unchanged: the same events, the same expected outcome.
    case = dataclasses.replace(fixture.case, reads=reads)
    write_atomic(out, dumps(dataclasses.replace(fixture, case=case)))
    return out


def recording(path: Path, out: Path, observed: dict) -> Path:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["observed"] = observed
    write_atomic(out, json.dumps(doc, indent=2) + "\n")
    return out
