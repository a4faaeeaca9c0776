"""The seed store between runs: a later run draws first the cases that failed before, from a folder or Redis."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time

import pytest

from toolfuzz.cli import main
from toolfuzz.engine.database import SeedStore, namespace_for
from hypothesis.database import InMemoryExampleDatabase

TARGET = "selftest-hand-out-after-disconnect"


def run(capsys, database, seed, examples, findings):
    code = main(["run", "--target", TARGET, "--profile", "openai", "--max-examples", str(examples), "--budget", "300",
                 "--seed", str(seed), "--database", str(database), "--findings", str(findings), "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return {d["signature"] for t in json.loads(out)["targets"] for d in t["divergences"]}


def check_replay(capsys, tmp_path, database):
    first = run(capsys, database, 3, 300, tmp_path / "a")
    assert first
    # The control: one example of seed 98, with nothing stored, finds nothing (its first case ends
    # cleanly, where this mutant is right).
    assert run(capsys, "none", 98, 1, tmp_path / "b") == set()
    # The same one example, after the stored failures are replayed: the first run's findings again.
    assert run(capsys, database, 98, 1, tmp_path / "c") & first


def test_a_directory_database_replays_what_failed_in_an_earlier_run(tmp_path, capsys):
    check_replay(capsys, tmp_path, tmp_path / "db")
    assert any((tmp_path / "db").rglob("*"))


@pytest.fixture
def redis_url(tmp_path):
    server = shutil.which("redis-server")
    assert server, "redis-server is not installed (.ci/run installs it)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path),
                                "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_redis_database_replays_what_failed_in_an_earlier_run(tmp_path, capsys, redis_url):
    import redis

    check_replay(capsys, tmp_path, redis_url)
    keys = redis.Redis.from_url(redis_url).keys("*toolfuzz.*")
    assert keys, "nothing was stored in Redis"


def test_an_unreachable_redis_is_one_usage_error(tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    code = main(["run", "--target", TARGET, "--database", f"redis://127.0.0.1:{port}/0", "--findings", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("toolfuzz run: --database redis://") and err.count("\n") == 1


def test_a_store_keeps_each_seed_once_in_a_fixed_order():
    store = SeedStore(InMemoryExampleDatabase(), namespace_for(["t"], None))
    for seed in (7, 2**62, 7, 0):
        store.remember(seed)
    assert store.seeds() == [0, 7, 2**62]


def test_other_targets_or_profiles_never_see_each_others_seeds():
    inner = InMemoryExampleDatabase()
    SeedStore(inner, namespace_for(["a"], ["openai"])).remember(5)
    assert SeedStore(inner, namespace_for(["a"], None)).seeds() == []
    assert SeedStore(inner, namespace_for(["a"], ["openai"])).seeds() == [5]
