"""The root causes a run knows, and the rule that folds a divergence into one of them.

A finding's signature is its target, its kind (for ``raised``, with the
crash state) and its minimal feature set.  A divergence of the same target,
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
        """The known root cause this divergence is a hit of, if any."""
        have = frozenset(features)
        for root in self._by.get((target, kind, state), ()):
            if root.features <= have:
                return root
        return None

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
