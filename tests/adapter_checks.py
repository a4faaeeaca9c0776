"""What the library adapters' tests share: the seed fixtures, and a target's divergences on a case."""

from __future__ import annotations

from pathlib import Path

from toolfuzz.judge.compare import compare
from toolfuzz.corpus.fixtures import load
from toolfuzz.vocabulary import Case
from toolfuzz.judge.sandbox import Observation, observe
from toolfuzz.targets import adapters
from toolfuzz.targets.base import Target
from toolfuzz.targets.reference import assemble

SEED = Path(__file__).resolve().parent.parent / "findings" / "seed"
SEEDS = sorted(p.stem for p in SEED.glob("*.json"))
#: A generous per-case limit: a loaded CI machine must not turn a slow library into a finding.
TIMEOUT = 30.0


def seed(name: str) -> Case:
    return load(SEED / f"{name}.json").case


def case_of(wire: bytes) -> Case:
    """A one-read case whose expected outcome is the reference's."""
    return Case(reads=(wire,), expected=assemble([wire]))


def run(target: Target, case: Case) -> Observation:
    return observe(target, case, timeout=TIMEOUT)


def kinds(target: Target, case: Case) -> list[str]:
    return [d.kind for d in compare(case.expected, run(target, case), target)]


def calls(target: Target, case: Case) -> list[tuple]:
    """(index, id, name, arguments, complete) of each call the target hands on."""
    obs = run(target, case)
    assert obs.raised is None, obs.raised
    return [(c.index, c.id, c.name, c.arguments, c.complete) for c in obs.calls]


def assert_registered(target: Target, version: str) -> None:
    """The target is registered, carries the installed library's version and a verified range.

    Only this adapter's entry is loaded (the registry's own path: distributions
    present, module imported), not every installed library's."""
    (entry,) = [a for a in adapters.KNOWN if target.name in a.names]
    loaded, why = adapters._load(entry)
    assert why == "" and target in loaded
    assert target.version == version
    assert adapters.verified()[target.name]


#: What every adapter that agrees with the seed's interleaved example returns for it.
TWO_CALLS = [(0, "call_w1", "get_weather", '{"city": "Paris", "unit": "celsius"}', True),
             (1, "call_r1", "read_file", '{"path": "/etc/hosts"}', True)]
