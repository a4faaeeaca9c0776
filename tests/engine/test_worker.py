"""What a worker's fork server loads: the harness, and only the adapters of the run's targets."""

from __future__ import annotations

from toolfuzz.engine.worker import PRELOAD, preload_for
from toolfuzz.targets.adapters import KNOWN


def test_the_fork_server_loads_only_the_adapters_a_run_names():
    openai = next(a for a in KNOWN if "openai-client" in a.names)
    assert preload_for(["reference", "selftest-plain"]) == PRELOAD
    assert preload_for(["reference", "openai-client"]) == [*PRELOAD, openai.module]
    everything = preload_for([name for a in KNOWN for name in a.names])
    assert set(everything) == set(PRELOAD) | {a.module for a in KNOWN}
