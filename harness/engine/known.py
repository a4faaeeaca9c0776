"""The root causes a run knows, and the rule that folds a divergence into one of them.

A finding's signature is its target, its kind (for ``raised``, with the
crash state) and its minimal feature set.  A ``raised`` divergence with a
crash state is a hit of any known root cause with that state.  A divergence of the same target,
kind and state whose case has *all* the minimal features of a known finding
is a **hit** of that finding: it adds nothing a person must read, so it is
counted and never reduced or written again.  A finding whose minimal
features are a strict subset of a known one's is more general: it
**replaces** the known one (and takes over its hits).

What is known is kept as plain records (:class:`Root`), so that it pickles
into a worker's configuration whatever the targets are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from toolfuzz.engine.events import Finding, signature_of

__all__ = ["Known", "Root"]


@dataclass(frozen=True)
class Root:
    target: str
    kind: str
    state: str
    features: frozenset[str]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.target, self.kind, self.state)

    @property
    def signature(self) -> str:
        return signature_of(self.target, self.kind, self.features, self.state)

    @classmethod
    def of(cls, finding: Finding) -> "Root":
        return cls(*finding.key, finding.features)


class Known:
    def __init__(self, roots: Iterable[Root] = ()) -> None:
        self._by: dict[tuple[str, str, str], list[Root]] = {}
        for root in roots:
            self._add(root)

    def explaining(self, target: str, kind: str, state: str, features: Iterable[str]) -> Root | None:
        """The known root cause this divergence is a hit of, if any.

        A raise with a crash state is clustered by it alone, as ClusterFuzz clusters crashes: the same
        exception from the same frames is the same bug whatever the stream looked like.  Its features
        only describe the smallest case known for it.
        """
        have = frozenset(features)
        roots = self._by.get((target, kind, state), ())
        if kind == "raised" and state and roots:
            return roots[0]
        for root in roots:
            if root.features <= have:
                return root
        return None

    def has(self, key: tuple[str, str, str]) -> bool:
        """Whether any root cause of this target, kind and crash state is known."""
        return bool(self._by.get(key))

    def add(self, finding: Finding) -> list[Root]:
        """Know ``finding``; the known root causes it replaces (strict supersets of its features)."""
        return self._add(Root.of(finding))

    def _add(self, root: Root) -> list[Root]:
        mine = self._by.setdefault((root.target, root.kind, root.state), [])
        replaced = [r for r in mine if root.features < r.features]
        mine[:] = [r for r in mine if r not in replaced] + [root]
        return replaced

    def __iter__(self) -> Iterator[Root]:
        for mine in self._by.values():
            yield from mine

    def __len__(self) -> int:
        return sum(len(v) for v in self._by.values())
