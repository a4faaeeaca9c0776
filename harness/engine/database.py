"""Hypothesis's example database for ``toolfuzz run``: where failing examples outlive the run.

A run stores the failing examples Hypothesis shrank, and the next run with
the same targets replays them before generating anything, so a restarted
night starts from what failed before.  ``--database`` picks the store: a
directory (default ``.toolfuzz/db``), ``redis://HOST:PORT/N`` for workers on
many machines, or ``none``.

Two things are the harness's own.  Keys are put in a namespace made of the
targets and profiles, so that jobs of a sharded run sharing one store never
replay (and so never delete) each other's examples.  And from the second
round of a search on, an example that was in the store when the round began
is not deleted when it stops failing: it stopped failing only because its
finding is known by then (:func:`toolfuzz.engine.search.is_explained`), not because
the bug is gone.  The first round knows nothing, so there a stored example
that passes has really stopped failing, and Hypothesis drops it as usual.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from toolfuzz.errors import UsageError

__all__ = ["DEFAULT_DATABASE", "RoundDatabase", "open_database", "namespace_for"]

DEFAULT_DATABASE = ".toolfuzz/db"


def namespace_for(targets: Iterable[str], profiles: Iterable[str] | None) -> bytes:
    """The same targets and profiles share stored examples; any other set has its own."""
    text = "\n".join(sorted(targets)) + "\n--\n" + ("\n".join(sorted(profiles)) if profiles else "*")
    return hashlib.sha256(text.encode()).hexdigest()[:16].encode()


def open_database(spec: str | None, namespace: bytes) -> RoundDatabase | None:
    """``none`` (or None): no store; ``redis://...``: a Redis server; anything else: a directory."""
    if spec is None or spec.lower() == "none":
        return None
    if spec.startswith(("redis://", "rediss://", "unix://")):
        return RoundDatabase(_redis(spec), namespace)
    path = Path(spec)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--database {spec}: not a directory")
    return RoundDatabase(DirectoryBasedExampleDatabase(str(path)), namespace)


def _redis(url: str) -> ExampleDatabase:
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise UsageError(f"--database {url}: needs the redis package (pip install 'toolfuzz[redis]')") from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=30)
        client.ping()
    except (redis.RedisError, ValueError) as e:
        raise UsageError(f"--database {url}: cannot reach the Redis server: {e}") from None
    return RedisExampleDatabase(client)


class RoundDatabase(ExampleDatabase):
    """Another database's entries under a namespace, kept through the rounds of one search."""

    def __init__(self, inner: ExampleDatabase, namespace: bytes) -> None:
        super().__init__()
        self.inner = inner
        self.namespace = namespace
        self._keep: set[tuple[bytes, bytes]] | None = None

    def start_round(self, number: int) -> None:
        self._keep = None if number == 0 else set()

    def _key(self, key: bytes) -> bytes:
        return b"toolfuzz." + self.namespace + b"." + key

    def fetch(self, key: bytes) -> Iterable[bytes]:
        values = list(self.inner.fetch(self._key(key)))
        if self._keep is not None:
            self._keep.update((key, v) for v in values)
        return values

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self._key(key), value)

    def delete(self, key: bytes, value: bytes) -> None:
        if self._keep is None or (key, value) not in self._keep:
            self.inner.delete(self._key(key), value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if self._keep is not None and (src, value) in self._keep:
            self.inner.save(self._key(dest), value)
        else:
            self.inner.move(self._key(src), self._key(dest), value)

    def __repr__(self) -> str:
        return f"RoundDatabase({self.inner!r}, {self.namespace!r})"
