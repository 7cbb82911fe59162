"""Everything that makes one game differ from another, in one frozen value that a replay can store."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from game.handling import Handling
from game.randomizer import RANDOMIZERS
from game.rotation import BUILTIN_FILES, build_rotation_system
from game.rules import Rules, SpinRule

GRAVITY_UNIT = 60 * 4096  # sub-cell units per cell (a multiple of 60, so 1/60 G is exact); falling is integer
MAX_GRAVITY = 20.0  # 20G: the piece falls to the floor within the tick


class LockMode(str, Enum):  # noqa: UP042 - StrEnum would change str() and f-strings of members; kept (compared, pickled, printed)
    MOVE_RESET = "move_reset"  # guideline: moves and rotations reset the timer, at most `move_reset_limit` times
    STEP_RESET = "step_reset"  # only reaching a new lowest row resets the timer
    INFINITE = "infinite"  # every move resets the timer, without limit


class GravityMode(str, Enum):  # noqa: UP042 - StrEnum would change str() and f-strings of members; kept (compared, pickled, printed)
    LEVEL = "level"  # the guideline curve, faster every `level_lines` lines
    FIXED = "fixed"  # `gravity` cells per tick (20 = 20G)


def guideline_gravity(level: int) -> float:
    """Cells per tick at a level: (0.8 - (level - 1) * 0.007) ** (level - 1) seconds per row, capped at 20G."""
    seconds_per_row = (0.8 - (level - 1) * 0.007) ** (level - 1)
    return min(MAX_GRAVITY, 1 / (60 * seconds_per_row))


@dataclass(frozen=True)
class GameConfig:
    rules: Rules = field(default_factory=Rules)
    randomizer: str = "7bag"
    previews: int = 5
    handling: Handling = field(default_factory=Handling)
    gravity_mode: GravityMode = GravityMode.LEVEL
    gravity: float = 1 / 60
    start_level: int = 1
    level_lines: int = 10
    lock_delay: int = 30
    lock_mode: LockMode = LockMode.MOVE_RESET
    move_reset_limit: int = 15
    are: int = 0
    line_clear_delay: int = 0
    track_finesse: bool = True

    def __post_init__(self) -> None:
        checks = (
            ("previews", 0, 6),
            ("start_level", 1, 30),
            ("level_lines", 1, 1000),
            ("lock_delay", 1, 6000),
            ("move_reset_limit", 0, 1000),
            ("are", 0, 600),
            ("line_clear_delay", 0, 600),
        )
        for name, low, high in checks:
            value = getattr(self, name)
            if not (low <= value <= high):
                raise ValueError(f"{name} = {value} is out of range ({low}..{high})")
        if not (0 <= self.gravity <= MAX_GRAVITY):
            raise ValueError(f"gravity = {self.gravity} is out of range (0..20 cells per tick)")
        if self.randomizer not in RANDOMIZERS:
            raise ValueError(f"unknown randomizer {self.randomizer!r} (choose from {', '.join(RANDOMIZERS)})")

    def gravity_units(self, level: int) -> int:
        cells = guideline_gravity(level) if self.gravity_mode is GravityMode.LEVEL else self.gravity
        return round(cells * GRAVITY_UNIT)

    # --- serialisation (replays, worker snapshots) -------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        rotation = self.rules.rotation
        builtin = next((key for key, name in BUILTIN_FILES.items() if name == rotation.source), None)
        return {
            "rules": {
                "rotation": builtin if builtin else rotation.document,
                "allow_180": self.rules.allow_180,
                "hold": self.rules.hold,
                "spin_rule": self.rules.spin_rule.value,
            },
            "randomizer": self.randomizer,
            "previews": self.previews,
            "handling": asdict(self.handling),
            "gravity_mode": self.gravity_mode.value,
            "gravity": self.gravity,
            "start_level": self.start_level,
            "level_lines": self.level_lines,
            "lock_delay": self.lock_delay,
            "lock_mode": self.lock_mode.value,
            "move_reset_limit": self.move_reset_limit,
            "are": self.are,
            "line_clear_delay": self.line_clear_delay,
            "track_finesse": self.track_finesse,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        rules_data = dict(data["rules"])
        rotation = rules_data.pop("rotation")
        if isinstance(rotation, str):
            rules = Rules.named(rotation, **_rules_kwargs(rules_data))
        else:
            rules = Rules(rotation=build_rotation_system(rotation, "<replay>"), **_rules_kwargs(rules_data))
        rest = {k: v for k, v in data.items() if k != "rules"}
        rest["handling"] = Handling(**rest["handling"])
        rest["gravity_mode"] = GravityMode(rest["gravity_mode"])
        rest["lock_mode"] = LockMode(rest["lock_mode"])
        return cls(rules=rules, **rest)


def _rules_kwargs(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "allow_180": bool(data.get("allow_180", False)),
        "hold": bool(data.get("hold", True)),
        "spin_rule": SpinRule(data.get("spin_rule", "tspin")),
    }
