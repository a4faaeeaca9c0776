"""What a run's findings are told apart by: where a target failed (:class:`CrashState`) and which root cause a
divergence belongs to before its features (:class:`RootKey`).

A crash state is text in a fixture (``found.crash_state``, an observation's ``crash_state``) and on the
subprocess protocol (a program's error says its own), and an object everywhere else: it is parsed once, where
that text comes in, and written back where it goes out, so that nothing in between splits strings.  The text
form is ``Type at module.function < module.caller``, innermost first: ClusterFuzz's crash state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["CrashState", "RootKey"]

_AT = " at "
_BELOW = " < "


@dataclass(frozen=True, slots=True)
class CrashState:
    """An exception type and the target's own innermost frames (``module.qualname``), innermost first."""

    error: str
    frames: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> CrashState:
        """The state ``text`` writes (:meth:`__str__`); any text parses, and writes back as it was, since a
        program behind the subprocess protocol may say a state of its own making."""
        error, at, frames = text.partition(_AT)
        return cls(error, tuple(frames.split(_BELOW)) if at else ())

    @classmethod
    def read(cls, text: object) -> CrashState | None:
        """The state a fixture or a program gave, where it gave one: None for a missing or empty one."""
        return cls.parse(text) if isinstance(text, str) and text else None

    def __str__(self) -> str:
        return f"{self.error}{_AT}{_BELOW.join(self.frames)}" if self.frames else self.error

    def innermost(self, frames: int) -> CrashState:
        """This state cut to its ``frames`` innermost frames: what two targets of one code base share, or
        where a variant is said to have been raised."""
        return CrashState(self.error, self.frames[:frames])


class RootKey(NamedTuple):
    """What a root cause is told apart by before its features: its target, its kind, and for a raise its
    crash state (None for every other kind)."""

    target: str
    kind: str
    state: CrashState | None = None
