"""The root causes a run knows, and the rule that folds a divergence into one of them.

A finding's signature is its target, its kind (for ``raised``, with the
crash state) and its minimal feature set.  A ``raised`` divergence with a
crash state is a hit of any known root cause with that state.  A ``timed_out``, ``hang`` or ``memory``
divergence is a hit of any known one of its target and kind.  A divergence of the same target,
kind and state whose case has *all* the minimal features of a known finding
is a **hit** of that finding: it adds nothing a person must read, so it is
counted and never reduced or written again.  A finding whose minimal
features are a strict subset of a known one's is more general: it
**replaces** the known one (and takes over its hits).  A reduced finding of
another kind whose minimal features hold all of a known root cause's is a
**variant** of it (:meth:`Known.variant_of`): a hit, and what it explains
from then on is too.  Raises are grouped likewise, as ClusterFuzz groups
crashes whose states are alike: a raise of the same exception type from
other frames, on a stream that needs all a known raise's features (the
role chunk before an index from one, say, moves where the same mistake
raises), is a variant of that raise.

A raise is one root cause across targets too: one whose exception type and
:data:`SHARED_FRAMES` innermost frames are those of a known raise of any
target is a hit of it, reported once with both targets affected (the SDK's
stream raising under every library that iterates it).

A target that runs inside others (``Target.builds_on``: the client on top of
the SDK's SSE decoder and of the stream state it feeds) shares their root
causes: a divergence of it that a root cause of a target below explains is
a hit of that root cause, reported once with both targets affected, and so
is a reduced one of any kind whose minimal features hold all of that root
cause's (the SSE decoder's event lost is the client's call lost; the
stream state's raise on a null index is the client's call lost); a root
cause of a target below found after one of the target above that it
explains takes that one over.  Their crash states
are compared on :data:`SHARED_FRAMES` innermost frames, since how
each is entered (the frames further out) differs by construction.

What is known is kept as plain records (:class:`Root`), so that it pickles
into a worker's configuration whatever the targets are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from toolfuzz.engine.events import Finding, Stats, signature_of
from toolfuzz.identity import CrashState, RootKey
from toolfuzz.kinds import Trait, with_trait

__all__ = ["Known", "Root", "SHARED_FRAMES", "PER_TARGET", "depths"]

#: Innermost frames two targets of one code base must share for a raise to be the same root cause.
SHARED_FRAMES = 2
#: How root causes of each kind are told apart, as toolfuzz.kinds.Trait says why.
PER_TARGET = with_trait(Trait.PER_TARGET)
_APART = with_trait(Trait.APART)
_NEVER_ACROSS = with_trait(Trait.NEVER_ACROSS)
_BY_STATE = with_trait(Trait.BY_STATE)


@dataclass(frozen=True)
class Root:
    target: str
    kind: str
    state: CrashState | None
    features: frozenset[str]

    @property
    def key(self) -> RootKey:
        return RootKey(self.target, self.kind, self.state)

    @property
    def signature(self) -> str:
        return signature_of(self.target, self.kind, self.features, self.state)

    @classmethod
    def of(cls, finding: Finding) -> "Root":
        return cls(*finding.key, finding.features)


class Known:
    def __init__(self, roots: Iterable[Root] = (), variants: bool = True) -> None:
        #: Whether findings of another kind are folded as variants (:meth:`variant_of`); off for a search
        #: that wants every kind it meets as a finding of its own (``search_for_kind``).
        self.variants = variants
        self._by: dict[RootKey, list[Root]] = {}
        #: Findings of another kind known to be a root cause's variants (:meth:`variant_of`), by key.
        self._aliases: dict[RootKey, list[tuple[Root, Root]]] = {}
        self._replaced_by: dict[Root, Root] = {}
        #: The targets each target of a finding known here builds on (``Target.builds_on``), where it does.
        self._below: dict[str, tuple[str, ...]] = {}
        for root in roots:
            self._add(root)

    def explaining(self, target: str, kind: str, state: CrashState | None, features: Iterable[str],
                   builds_on: Iterable[str] | str = ()) -> Root | None:
        """The known root cause this divergence is a hit of, if any: ``target``'s own, else one of a target
        it builds on (``builds_on``, in its order).

        A raise with a crash state is clustered by it alone, as ClusterFuzz clusters crashes: the same
        exception from the same frames is the same bug whatever the stream looked like.  Its features
        only describe the smallest case known for it.
        """
        have = frozenset(features)
        own = self._first_hit(self._by.get(RootKey(target, kind, state), ()), kind, state, have)
        if own is None:
            own = next((self._standing(main) for alias, main in self._aliases.get(RootKey(target, kind, state), ())
                        if alias.features <= have), None)
        if own is not None:
            return own
        core = _core(state)
        if kind in _BY_STATE and state:
            # The same exception from the same innermost frames is the same bug in whichever target met it
            # first: code several targets run (an SDK's stream under every library that iterates it).
            return next((r for key, roots in self._by.items() if key.kind == kind and _core(key.state) == core
                         for r in roots), None)
        for name in _names(builds_on):
            hit = self._first_hit(self._roots_of(name, kind, core), kind, state, have)
            if hit is not None:
                return hit
        return None

    def _roots_of(self, name: str, kind: str, core: CrashState | None) -> list[Root]:
        """The known root causes of target ``name`` of this kind whose crash state cut to its innermost frames
        (:func:`_core`) is ``core``: what a target built on ``name`` shares with it."""
        return [r for key, roots in self._by.items()
                if (key.target, key.kind) == (name, kind) and _core(key.state) == core for r in roots]

    def explain(self, finding: Finding) -> Root | None:
        """:meth:`explaining` for a finding of a target (which may build on another)."""
        return self.explaining(*finding.key, finding.features, finding.target.builds_on)

    def fold(self, finding: Finding, stats: Stats) -> list[Root] | None:
        """Fold ``finding`` into what is known, and count it in ``stats``: None when it is a hit (of a known
        root cause, or as a variant of one); else it is known now, and these are the root causes it replaced.

        The one rule a search and the supervisor over its workers both fold by.
        """
        hit = self.explain(finding)
        if hit is None:
            hit = self.variant_of(*finding.key, finding.features, finding.target.builds_on,
                                  minimal=not finding.unshrunk)
            if hit is not None:
                if not finding.unshrunk:
                    self.alias(Root.of(finding), hit)
                stats.also_as.setdefault(hit.signature, set()).add(_shown(finding.divergence.kind, finding.state))
        if hit is not None:
            stats.hit(hit.signature, finding.target.name)
            return None
        replaced = self.add(finding)
        for old in replaced:
            stats.carry(old.signature, finding.signature, old.target, finding.target.name)
            if old.target == finding.target.name and old.key[1:] != finding.key[1:]:
                stats.also_as.setdefault(finding.signature, set()).add(_shown(old.kind, old.state))
        return replaced

    @staticmethod
    def _first_hit(roots: Iterable[Root], kind: str, state: CrashState | None, have: frozenset[str]) -> Root | None:
        for root in roots:
            if (kind in _BY_STATE and state) or kind in PER_TARGET or root.features <= have:
                return root
        return None

    def variant_of(self, target: str, kind: str, state: CrashState | None, features: Iterable[str],
                   builds_on: Iterable[str] | str = (), minimal: bool = True) -> Root | None:
        """The known root cause of ``target`` that a reduced finding of another kind is a variant of, if any.

        A finding whose *minimal* features hold all the (not plain) features of a known root cause of
        its target needs what that root cause needs: the same mistake, shown on another stream as another
        kind (a choice mixed up reads as a call lost when the other choice was cut short).  So does one that
        holds all those of a root cause of a target it builds on, whatever the two kinds (a raise of the
        SDK's stream state is a call lost in the client that iterates it; an event the SSE decoder makes up
        is a decode error in the library that reads its data), but running out of time or memory, a crash,
        a blocked action or a bad return, which say nothing of the stream, and the partial level's rules.
        A root cause met on the plainest stream (no features) has every later finding of its target as a
        variant: a target wrong on the plainest stream is wrong everywhere, and what else it gets wrong
        waits for that to be fixed.  Of its own kinds, never for crashes, blocked actions, bad returns or
        running out of time; a raise is only a variant of a raise of the same exception type from other
        frames.  The known root cause with most features is the one named.  Features not ``minimal`` (a
        finding kept as met, not reduced) hold those of almost anything: such a finding is only a variant
        of a root cause that needs no feature.
        """
        below = set(_names(builds_on)) - {target}
        if not self.variants or (kind in _APART and not (kind == "raised" and state) and not below):
            return None
        have = frozenset(features)
        best: Root | None = None
        for (t, k, other), roots in self._by.items():
            if not (_alike(kind, state, k, other) if t == target else t in below and _across(kind, k)):
                continue
            for root in roots:
                if (minimal or not root.features) and root.features <= have and (
                        best is None or len(root.features) > len(best.features)):
                    best = root
        return best

    def alias(self, variant: Root, root: Root) -> None:
        """Know ``variant`` as a variant of ``root``: what it would explain is a hit of ``root``."""
        self._aliases.setdefault(variant.key, []).append((variant, root))

    def _standing(self, root: Root) -> Root:
        while root in self._replaced_by:
            root = self._replaced_by[root]
        return root

    def has(self, key: RootKey, builds_on: Iterable[str] | str = ()) -> bool:
        """Whether any root cause of this target, kind and crash state is known, or of this kind and crash state
        (its innermost frames) in a target it builds on (``builds_on``)."""
        if self._by.get(key) or self._aliases.get(key):
            return True
        return any(self._roots_of(name, key.kind, _core(key.state)) for name in _names(builds_on))

    def add(self, finding: Finding) -> list[Root]:
        """Know ``finding``; the known root causes it replaces: strict supersets of its features, and those of
        other kinds that turn out to be its variants."""
        if finding.target.builds_on:
            self._below[finding.target.name] = finding.target.builds_on
        return self._add(Root.of(finding))

    def _add(self, root: Root) -> list[Root]:
        mine = self._by.setdefault(root.key, [])
        replaced = [r for r in mine if root.features < r.features]
        mine[:] = [r for r in mine if r not in replaced] + [root]
        for old in replaced:
            self._replaced_by[old] = root
        # Root causes of targets built on this one that it explains, found first because the case that met
        # them showed this target another kind first (a case is reported once a target, by its first kind).
        for (target, kind, state), roots in self._by.items():
            if root.target not in self._below.get(target, ()):
                continue
            if kind == root.kind and _core(state) == _core(root.state):
                above = [r for r in roots if self._first_hit([root], kind, state, r.features) is not None]
            elif self.variants and _across(kind, root.kind):
                above = [r for r in roots if root.features <= r.features]  # seen from above, as another kind
            else:
                continue
            roots[:] = [r for r in roots if r not in above]
            for old in above:
                self._replaced_by[old] = root
            replaced += above
        if self.variants and (root.kind not in _APART or (root.kind == "raised" and root.state)):
            # Known before it, its variants were taken for root causes of their own: whichever came first,
            # the root cause is the one with fewer features.
            for key, roots in self._by.items():
                if key.target != root.target or not _alike(key.kind, key.state, root.kind, root.state):
                    continue
                variants = [r for r in roots if root.features <= r.features]
                roots[:] = [r for r in roots if r not in variants]
                for old in variants:
                    self._replaced_by[old] = root
                    self._aliases.setdefault(old.key, []).append((old, root))
                replaced += variants
        return replaced

    def __iter__(self) -> Iterator[Root]:
        for mine in self._by.values():
            yield from mine

    def __len__(self) -> int:
        return sum(len(v) for v in self._by.values())


def _alike(kind: str, state: CrashState | None, other_kind: str, other_state: CrashState | None) -> bool:
    """Whether a finding of ``kind`` may be a variant of a root cause of ``other_kind`` (or the reverse):
    two kinds the calls tell apart, or two raises of one exception type from other frames."""
    if kind == "raised" or other_kind == "raised":
        return (kind == other_kind and state is not None and other_state is not None and state != other_state
                and state.error == other_state.error)
    return kind != other_kind and kind not in _APART and other_kind not in _APART


def _across(kind: str, other_kind: str) -> bool:
    """Whether a finding of ``kind`` may be a root cause of ``other_kind`` in a target below seen from above."""
    return kind not in _NEVER_ACROSS and other_kind not in _NEVER_ACROSS


def _shown(kind: str, state: CrashState | None) -> str:
    """How a variant is listed under "also as": its kind, and for a raise where it was raised."""
    return f"{kind}[{state.innermost(1)}]" if kind == "raised" and state else kind


def depths(builds_on: dict[str, Iterable[str] | str]) -> dict[str, int]:
    """How far above the bottom each named target is (0 for one that builds on none of those named):
    the order to run or fold them in, so that what a target and one below it share is found below."""
    out: dict[str, int] = {}

    def depth(name: str, seen: frozenset[str]) -> int:
        if name not in out:
            below = [b for b in _names(builds_on.get(name, ())) if b not in seen]
            out[name] = 1 + max((depth(b, seen | {name}) for b in below), default=-1)
        return out[name]

    for name in builds_on:
        depth(name, frozenset())
    return out


def _names(builds_on: Iterable[str] | str) -> tuple[str, ...]:
    """``Target.builds_on`` as a tuple of names, whether given as one name or several."""
    return ((builds_on,) if builds_on else ()) if isinstance(builds_on, str) else tuple(builds_on)


def _core(state: CrashState | None) -> CrashState | None:
    """A crash state cut to its exception type and :data:`SHARED_FRAMES` innermost frames."""
    return state.innermost(SHARED_FRAMES) if state is not None else None
