"""The rules a placement depends on, in one frozen value shared by the engine, the AI and the PC solver."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeVar, cast

from game.rotation import RotationSystem, builtin_system

# Every piece spawns in its spawn state with its rotation cell here: flat side down on row 20, just above the
# 20 visible rows; 3-wide pieces take columns 3-5 (left of centre), I takes 3-6 and O takes 4-5.
SPAWN_X = 4
SPAWN_Y = 20


class SpinRule(str, Enum):  # noqa: UP042 - StrEnum would change str() and f-strings of members; kept (compared, pickled, printed)
    """Which rotations into place score as spins."""

    T_SPIN = "tspin"  # guideline: T pieces only, 3-corner rule with mini/full
    ALL_SPIN = "allspin"  # T as above; other pieces that end immobile after a rotation score a mini spin
    NONE = "none"


@dataclass(frozen=True)
class Rules:
    """Rotation system and the switches that change which placements exist and how they score."""

    rotation: RotationSystem = field(default_factory=lambda: builtin_system("srs"))
    allow_180: bool = False
    hold: bool = True
    spin_rule: SpinRule = SpinRule.T_SPIN
    spawn_x: int = SPAWN_X
    spawn_y: int = SPAWN_Y

    def cache_key(self) -> tuple:
        """A hashable value that changes whenever a rule affecting placements changes (for solver caches)."""
        return (self.rotation.fingerprint, self.allow_180, self.hold, self.spin_rule, self.spawn_x, self.spawn_y)

    @property
    def mirror_symmetric(self) -> bool:
        """Are the placements of every (low) field, reflected, its mirror image's under these rules (the turns
        they allow checked as data: RotationSystem.mirror_symmetric)?"""
        return self.rotation.mirror_symmetric(self.allow_180)

    @classmethod
    def named(cls, rotation: str = "srs", **kwargs) -> Rules:
        """Rules with a built-in rotation system key (srs, srs+, none, nrs) or a kick-table path."""
        from game.rotation import resolve_system

        return cls(rotation=resolve_system(rotation), **kwargs)


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class PerRules(Protocol[T_co]):
    """What `per_rules` makes: the builder, shared per rules, with functools.lru_cache's `cache_clear` and
    `cache_info`."""

    def __call__(self, rules: Rules, *args: Any, **kwargs: Any) -> T_co: ...

    def cache_clear(self) -> None: ...

    def cache_info(self) -> Any: ...


class _ByRulesKey:
    """A call's arguments as a cache key: equal when the rules' cache_key() and the other arguments are equal,
    while the Rules object itself (which the build needs) stays out of the comparison."""

    __slots__ = ("_hash", "args", "key")

    def __init__(self, args: tuple) -> None:
        self.args = args
        self.key = (args[0].cache_key(), *args[1:])
        self._hash = hash(self.key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByRulesKey) and self.key == other.key


def per_rules(limit: int = 8) -> Callable[[Callable[..., T]], PerRules[T]]:
    """Decorator: `build(rules, *args)` made once per (rules.cache_key(), args) and shared. Solvers and engines keep
    memos that are only valid under the rules they were built for, so a change of rules gets a fresh one; at most
    `limit` are kept, the least recently used dropped first (a functools.lru_cache; `cache_clear` and
    `cache_info` as it offers)."""

    def wrap(build: Callable[..., T]) -> PerRules[T]:
        signature = inspect.signature(build)
        positional = [
            p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(positional) != len(signature.parameters):
            raise TypeError(f"per_rules: {build.__name__} must take positional parameters only")

        @functools.lru_cache(maxsize=limit)
        def made(call: _ByRulesKey) -> T:
            return build(*call.args)

        @functools.wraps(build)
        def shared(rules: Rules, *args: Any, **kwargs: Any) -> T:
            if kwargs or len(args) + 1 != len(positional):  # all given by position (the hot path): no binding
                bound = signature.bind(rules, *args, **kwargs)
                bound.apply_defaults()  # f(rules) and f(rules, default) share one entry
                args = bound.args[1:]
            return made(_ByRulesKey((rules, *args)))

        shared.cache_clear = made.cache_clear  # type: ignore[attr-defined]
        shared.cache_info = made.cache_info  # type: ignore[attr-defined]
        return cast("PerRules[T]", shared)  # the function, with the two attributes just set

    return wrap
