"""Plans: a case's decisions by name, drawn at random or read back, so that any case can be rendered again.

Theory of operation
-------------------

Every stage of the pipeline draws through four functions of
:mod:`toolfuzz.strategies.stage` (``integer``, ``boolean``, ``pick``,
``text``, and ``opaque`` for a strategy the pipeline cannot draw itself).
Given Hypothesis's ``draw``, they are Hypothesis draws: that is the
public :func:`toolfuzz.strategies.cases` strategy, shrunk by Hypothesis in
a user's ``@given`` test.  Given a :class:`Drawer`, they are decisions:

* **drawn** from a seeded :class:`random.Random`, which costs a few
  microseconds where a Hypothesis draw costs tens: the engine's fast path;
* **recorded** under a name made of the stages they were drawn in and their
  order there (``("chat:0", "call:2", "fragments:0", 3)``), but only when
  they differ from the simplest draw (the lowest integer, ``False``, the
  first item, the empty text);
* **read back** from a recorded plan, a missing name meaning the simplest
  draw.  Rendering a plan again gives the same case, byte for byte.

So a plan is a sparse mapping, and every edit of it renders to a valid case
whose outcome is known by construction, because the outcome is computed
from what was rendered, never stored.  Deleting one name makes one decision
plain; deleting every name under a stage (``fragments:0``) makes that whole
stage plain: one fragment, one read, LF framing.  That is what the domain
reduction (:mod:`toolfuzz.strategies.reduce`) edits.

A stage's names are counted within the stage that drew them, so an edit that
makes an earlier stage draw less (fewer calls) changes what later draws of
the *same* stage mean, but never the draws of other stages.

Strategies the pipeline does not draw itself (a ``pattern``'s regex, a date
format, a schema only hypothesis-jsonschema understands) are drawn from a
pool that Hypothesis fills once per process with a fixed seed; the value
drawn is recorded whole.
"""

from __future__ import annotations

from random import Random
from typing import Any, Mapping

__all__ = ["Drawer", "Key", "plan_to_json", "plan_from_json", "simplest_integer"]

Key = tuple  # (stage names..., n)

_MISSING = object()
_MAX_FLOAT = 1.7976931348623157e308
_POOL_SIZE = 64
_pools: dict[int, tuple[Any, list[Any]]] = {}
_simplest: dict[int, tuple[Any, Any]] = {}

#: Characters for text drawn without an alphabet: the fault lines of a JSON
#: text cut into pieces (see toolfuzz.strategies.values.NASTY_CHARACTERS,
#: which the values module hands in), and any code point now and then.
_NO_SURROGATES = [(0x20, 0x7E), (0xA0, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]


def simplest_integer(lo: int | None, hi: int | None) -> int:
    """What Hypothesis shrinks an integer toward: zero where allowed, else the bound nearest it."""
    if (lo is None or lo <= 0) and (hi is None or hi >= 0):
        return 0
    return lo if lo is not None and lo > 0 else hi  # type: ignore[return-value]


def _random_integer(rnd: Random, lo: int | None, hi: int | None) -> int:
    if lo is not None and hi is not None:
        span = hi - lo
        # random() scaled rather than randrange: a third of a draw's time, and even enough for spans
        # far below its 53 bits.
        if span <= 64:
            return lo + int(rnd.random() * (span + 1))
        roll = int(rnd.random() * 16)
        if roll == 0:
            return lo
        if roll == 1:
            return hi
        if roll < 6:  # small offsets from the low end, where counts and positions mostly live
            return lo + int(rnd.random() * (min(span, 64) + 1))
        return lo + (int(rnd.random() * (span + 1)) if span < 1 << 32 else rnd.randrange(span + 1))
    magnitude = rnd.getrandbits(rnd.randrange(1, 72))
    if lo is not None:
        return lo + magnitude
    if hi is not None:
        return hi - magnitude
    return -magnitude if rnd.randrange(2) else magnitude


class Drawer:
    """The source of a case's decisions: read back from ``given``, and what it lacks random with ``rnd``.

    With ``given`` alone a missing decision is the simplest; with ``rnd`` alone every decision is drawn.
    With both, and ``under`` a stage's name, only the decisions within that stage are drawn at random
    (a reduction drawing one stage again), the others missing are the simplest.
    """

    __slots__ = ("_rnd", "_given", "_under", "decisions", "_path", "_counts", "_stack")

    def __init__(self, rnd: Random | None = None, given: Mapping[Key, Any] | None = None,
                 under: Key = ()) -> None:
        if rnd is None and given is None:
            raise ValueError("a Drawer draws at random (rnd), reads a plan back (given), or both")
        self._rnd = rnd
        self._given = given
        self._under = under
        #: The plan: every decision that differs from the simplest draw, by name.
        self.decisions: dict[Key, Any] = {}
        self._path: tuple = ()
        self._counts: dict[tuple, int] = {}
        self._stack: list[tuple] = []

    # -- names -------------------------------------------------------------------------------

    def _key(self) -> Key:
        path = self._path
        n = self._counts.get(path, 0)
        self._counts[path] = n + 1
        return path + (n,)

    def enter(self, name: str) -> None:
        """Draws until :meth:`leave` are named within the stage ``name`` (its n-th use here)."""
        counter = self._path + (name, None)
        n = self._counts.get(counter, 0)
        self._counts[counter] = n + 1
        self._stack.append(self._path)
        self._path = self._path + (f"{name}:{n}",)

    def leave(self) -> None:
        self._path = self._stack.pop()

    def _random(self, key: Key) -> Random | None:
        under = self._under
        return self._rnd if not under or key[:len(under)] == under else None

    # -- the primitives ----------------------------------------------------------------------

    def integer(self, lo: int | None, hi: int | None) -> int:
        key = self._key()
        simplest = simplest_integer(lo, hi)
        v = _MISSING if self._given is None else self._given.get(key, _MISSING)
        if v is _MISSING or type(v) is not int:
            rnd = self._random(key)
            if rnd is None:
                return simplest
            v = _random_integer(rnd, lo, hi)
        elif lo is not None and v < lo:
            v = lo
        elif hi is not None and v > hi:
            v = hi
        if v != simplest:
            self.decisions[key] = v
        return v

    def boolean(self) -> bool:
        key = self._key()
        v = _MISSING if self._given is None else self._given.get(key, _MISSING)
        if v is _MISSING:
            rnd = self._random(key)
            v = rnd is not None and rnd.random() < 0.5
        else:
            v = v is True
        if v:
            self.decisions[key] = True
        return v

    def text(self, alphabet: str | tuple[str, ...] | None, min_size: int, max_size: int,
             extra: tuple[str, ...] = ()) -> str:
        """A string of ``min_size`` to ``max_size`` characters from ``alphabet`` (or ``extra`` and any code point)."""
        key = self._key()
        simplest = (alphabet[0] if alphabet else "0") * min_size
        v = _MISSING if self._given is None else self._given.get(key, _MISSING)
        if v is not _MISSING and (type(v) is not str or not min_size <= len(v) <= max_size):
            v = simplest
        rnd = self._random(key) if v is _MISSING else None
        if v is _MISSING and rnd is None:
            v = simplest
        elif v is _MISSING:
            n = rnd.randrange(min_size, max_size + 1) if rnd.randrange(4) else min_size + rnd.randrange(
                min(3, max_size - min_size) + 1)
            if alphabet:
                v = "".join(rnd.choice(alphabet) for _ in range(n))
            else:
                chars = []
                for _ in range(n):
                    if extra and rnd.randrange(3):
                        chars.append(rnd.choice(extra))
                    else:
                        a, b = _NO_SURROGATES[rnd.randrange(len(_NO_SURROGATES))]
                        chars.append(chr(rnd.randint(a, b)))
                v = "".join(chars)
        if v != simplest:
            self.decisions[key] = v
        return v

    def floating(self, lo: float | None, hi: float | None) -> float:
        """A finite float in ``[lo, hi]`` (either may be None), often at an edge or with a large exponent."""
        key = self._key()
        low = -_MAX_FLOAT if lo is None else lo
        high = _MAX_FLOAT if hi is None else hi
        simplest = 0.0 if low <= 0.0 <= high else (low if low > 0 else high)
        v = _MISSING if self._given is None else self._given.get(key, _MISSING)
        if v is not _MISSING and (type(v) is not float or not low <= v <= high):
            v = simplest
        rnd = self._random(key) if v is _MISSING else None
        if v is _MISSING and rnd is None:
            v = simplest
        elif v is _MISSING:
            roll = rnd.randrange(8)
            if roll == 0:
                v = low if lo is not None else high if hi is not None else -0.0
            elif roll == 1:
                v = high if hi is not None else rnd.choice((1e-300, 5e-324, 1.7976931348623157e308))
            elif roll < 4:
                v = rnd.uniform(max(low, -1e6), min(high, 1e6)) if max(low, -1e6) <= min(high, 1e6) \
                    else rnd.uniform(low, high)
            else:
                v = rnd.uniform(-1.0, 1.0) * 10.0 ** rnd.randint(-320, 308)
                if not low <= v <= high:
                    v = rnd.uniform(low, high)
            v = float(v)
        if v != simplest or str(v) != str(simplest):
            self.decisions[key] = v
        return v

    def opaque(self, strategy: Any) -> Any:
        """A value of a Hypothesis strategy the pipeline cannot draw itself, from a pool filled once."""
        key = self._key()
        v = _MISSING if self._given is None else self._given.get(key, _MISSING)
        if v is _MISSING:
            rnd = self._random(key)
            if rnd is None:
                return simplest_of(strategy)
            pool = pool_of(strategy)
            v = pool[rnd.randrange(len(pool))]
        self.decisions[key] = v
        return v

    def __call__(self, strategy: Any) -> Any:
        # A strategy made by stage() carries its drawing function: run it on this drawer.
        made = getattr(strategy, "toolfuzz_stage", None)
        if made is not None:
            fn, args, kwargs = made
            return fn(self, *args, **kwargs)
        return self.opaque(strategy)


def _collect(strategy: Any, n: int) -> list[Any]:
    from hypothesis import HealthCheck, Phase, given, settings

    out: list[Any] = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out


def pool_of(strategy: Any) -> list[Any]:
    held = _pools.get(id(strategy))
    if held is None or held[0] is not strategy:
        values = _collect(strategy, _POOL_SIZE) or [simplest_of(strategy)]
        held = (strategy, values)
        _pools[id(strategy)] = held
    return held[1]


def simplest_of(strategy: Any) -> Any:
    held = _simplest.get(id(strategy))
    if held is None or held[0] is not strategy:
        from hypothesis import HealthCheck, find, settings

        value = find(strategy, lambda _: True, settings=settings(database=None, derandomize=True,
                                                                suppress_health_check=list(HealthCheck)))
        held = (strategy, value)
        _simplest[id(strategy)] = held
    return held[1]


def plan_to_json(decisions: Mapping[Key, Any]) -> list[list[Any]]:
    """A plan as JSON: a list of ``[name..., value]`` rows (names are strings and integers)."""
    return [[*key, value] for key, value in decisions.items()]


def plan_from_json(rows: list[list[Any]]) -> dict[Key, Any]:
    return {tuple(row[:-1]): row[-1] for row in rows}
