"""Where ``toolfuzz run`` keeps the seeds of cases that met new findings, so a later run starts there.

A case is drawn from a seed (:class:`toolfuzz.strategies.cases.Planner`), so
the seed is all a later run needs to meet the same case again.  A search
stores the seed of each case that met a new finding, and the next search
with the same targets and profiles draws those seeds first, before any new
one: a restarted night starts from what failed before.  ``--database``
picks the store: a directory (default ``.toolfuzz/db``),
``redis://HOST:PORT/N`` for workers on many machines, or ``none``.

Keys are put in a namespace made of the targets and profiles, so that jobs
of a sharded run sharing one store never see each other's seeds.  A seed
whose case no longer diverges is still kept: it may only have become a hit
of a finding known by then, not a bug fixed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from toolfuzz.errors import UsageError, need_writable

__all__ = ["DEFAULT_DATABASE", "SeedStore", "directory_of", "open_database", "namespace_for"]

DEFAULT_DATABASE = ".toolfuzz/db"


def namespace_for(targets: Iterable[str], profiles: Iterable[str] | None) -> bytes:
    """The same targets and profiles share stored examples; any other set has its own."""
    text = "\n".join(sorted(targets)) + "\n--\n" + ("\n".join(sorted(profiles)) if profiles else "*")
    return hashlib.sha256(text.encode()).hexdigest()[:16].encode()


def directory_of(spec: str | None) -> Path | None:
    """The folder a ``--database`` spec keeps its seeds in, checked writable; None for no store or a server.

    A run asks it before anything runs, with the other folders it writes in, so that a refused database
    leaves nothing made behind (the state folder included)."""
    if spec is None or spec.lower() == "none" or spec.startswith(("redis://", "rediss://", "unix://")):
        return None
    path = Path(spec)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--database {spec}: not a directory")
    # The store drops what it cannot write without a word: a run would remember nothing.
    need_writable(path, f"--database {spec}")
    return path


def open_database(spec: str | None, namespace: bytes) -> SeedStore | None:
    """``none`` (or None): no store; ``redis://...``: a Redis server; anything else: a directory."""
    if spec is None or spec.lower() == "none":
        return None
    if spec.startswith(("redis://", "rediss://", "unix://")):
        return SeedStore(_redis(spec), namespace)
    return SeedStore(DirectoryBasedExampleDatabase(str(directory_of(spec))), namespace)


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


class SeedStore:
    """The seeds of one namespace in a key-value store (Hypothesis's directory or Redis databases)."""

    def __init__(self, inner: ExampleDatabase, namespace: bytes) -> None:
        self.inner = inner
        self.key = b"toolfuzz." + namespace + b".seeds"

    def seeds(self) -> list[int]:
        """The stored seeds, in a fixed order (the store keeps a set)."""
        return sorted(int.from_bytes(v, "big") for v in self.inner.fetch(self.key) if len(v) == 8)

    def remember(self, seed: int) -> None:
        self.inner.save(self.key, seed.to_bytes(8, "big"))

    def __repr__(self) -> str:
        return f"SeedStore({self.inner!r}, {self.key!r})"
