"""Game modes and the bridge from the player's Settings to a `game.config.GameConfig` (no pygame here).

Contract: `game_config(settings, mode)` never raises for a bad custom kick file; it falls back to the named
rotation system and returns the problem as a message for the player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from game.config import GameConfig, GravityMode, LockMode, guideline_gravity
from game.handling import Handling
from game.rules import Rules, SpinRule

if TYPE_CHECKING:
    from settings import Settings


@dataclass(frozen=True)
class Mode:
    key: str  # stored in the history database
    title: str
    blurb: str
    goal_lines: int | None = None  # the game ends (finished) when this many lines are cleared
    allow_undo: bool = False
    gravity: str = "settings"  # "settings", "none" or "level" (marathon's curve)
    shows_level: bool = False


ZEN = Mode("zen", "Zen", "Free play: no goal, no gravity, undo and redo allowed.", allow_undo=True, gravity="none")
SPRINT = Mode("sprint", "40 Lines", "Clear 40 lines as fast as you can.", goal_lines=40)
MARATHON = Mode(
    "marathon",
    "Marathon",
    "150 lines; gravity speeds up every 10 lines.",
    goal_lines=150,
    gravity="level",
    shows_level=True,
)
PC_PRACTICE = Mode(
    "pc",
    "PC Practice",
    "Perfect clears from an empty board, a setup or a pasted fumen; undo, "
    "redo, R for a new queue, Shift+R for the same one again.",
    allow_undo=True,
    gravity="none",
)
SETUP_PRACTICE = Mode(
    "setup",
    "Set-up Practice",
    "Build a set-up or opener from the library with the coach's "
    "guidance, then finish it with its PC or T-spin; undo, redo, R for a new bag.",
    allow_undo=True,
    gravity="none",
)
MODES: tuple[Mode, ...] = (ZEN, SPRINT, MARATHON, PC_PRACTICE, SETUP_PRACTICE)
MODES_BY_KEY = {mode.key: mode for mode in MODES}


def handling_of(settings: Settings) -> Handling:
    ticks = settings.handling.to_ticks()
    return Handling(das=ticks.das_ticks, arr=ticks.arr_ticks, sdf=ticks.sdf, dcd=ticks.dcd_ticks)


def rules_of(settings: Settings) -> tuple[Rules, list[str]]:
    """The Rules for the settings; a custom kick file that cannot be loaded falls back to `rotation`."""
    r = settings.rules
    problems: list[str] = []
    name = r.rotation
    switches = {"allow_180": r.allow_180, "hold": r.hold, "spin_rule": SpinRule(r.spin_rule)}
    if r.kick_file:
        try:
            return Rules.named(r.kick_file, **switches), problems
        except (OSError, ValueError) as error:
            problems.append(f"custom kick file {r.kick_file} could not be loaded ({error}); using {name}")
    return Rules.named(name, **switches), problems


def game_config(settings: Settings, mode: Mode) -> tuple[GameConfig, list[str]]:
    """GameConfig for a mode under the player's settings, plus messages about anything not applied."""
    r = settings.rules
    rules, problems = rules_of(settings)
    if mode.gravity == "none":
        gravity_mode, gravity = GravityMode.FIXED, 0.0
    elif mode.gravity == "level" or r.gravity_mode == "level":
        gravity_mode, gravity = GravityMode.LEVEL, 0.0
        if mode.gravity == "settings":
            # Outside marathon the speed stays at the chosen start level instead of climbing.
            gravity_mode, gravity = GravityMode.FIXED, guideline_gravity(r.start_level)
    elif r.gravity_mode == "20g":
        gravity_mode, gravity = GravityMode.FIXED, 20.0
    else:
        gravity_mode, gravity = GravityMode.FIXED, float(r.fixed_gravity)
    config = GameConfig(
        rules=rules,
        randomizer=r.randomizer,
        previews=r.previews,
        handling=handling_of(settings),
        gravity_mode=gravity_mode,
        gravity=gravity,
        start_level=r.start_level,
        lock_delay=r.lock_delay,
        lock_mode=LockMode(r.lock_delay_mode),
        move_reset_limit=r.move_reset_limit,
        are=r.are,
        line_clear_delay=r.line_clear_delay,
    )
    return config, problems


def rules_summary(settings: Settings, mode: Mode) -> str:
    """Short text identifying the rules that make results comparable (personal bests are kept per summary)."""
    r = settings.rules
    rotation = f"kicks:{r.kick_file}" if r.kick_file else r.rotation
    parts = [rotation, r.randomizer, f"{r.previews}nx", "hold" if r.hold else "nohold"]
    if r.allow_180:
        parts.append("180")
    if mode.gravity == "level":
        parts.append(f"lv{r.start_level}")
    elif mode.gravity == "settings":
        parts.append(
            "20g"
            if r.gravity_mode == "20g"
            else f"lv{r.start_level}"
            if r.gravity_mode == "level"
            else f"g{r.fixed_gravity:g}"
        )
    return " ".join(parts)


_ROTATION_NAMES = {"srs": "SRS", "srs+": "SRS+", "none": "no kicks", "nrs": "NRS"}
_RANDOMIZER_NAMES = {
    "7bag": "7-bag",
    "14bag": "14-bag",
    "random": "random pieces",
    "nes": "NES randomizer",
    "tgm": "TGM randomizer",
}


def describe_rules(summary: str) -> str:
    """A `rules_summary` as players read it: "srs 7bag 5nx hold 180 lv1" ->
    "SRS · 7-bag · 5 previews · hold · 180° · level 1". Parts it does not know are shown as they are."""
    tokens = summary.split(" ")
    # The rotation part may hold spaces (a custom kick file's path): it runs up to the randomizer.
    split = next((i for i, token in enumerate(tokens) if i and token in _RANDOMIZER_NAMES), 1)
    rotation = " ".join(tokens[:split])
    if rotation.startswith("kicks:"):
        parts = [f"kicks from {rotation[len('kicks:') :].replace(chr(92), '/').rsplit('/', 1)[-1]}"]
    else:
        parts = [_ROTATION_NAMES.get(rotation, rotation)]
    for token in tokens[split:]:
        if token in _RANDOMIZER_NAMES:
            parts.append(_RANDOMIZER_NAMES[token])
        elif token.endswith("nx") and token[:-2].isdigit():
            n = int(token[:-2])
            parts.append("no previews" if n == 0 else f"{n} preview{'s' if n != 1 else ''}")
        elif token in ("hold", "nohold"):
            parts.append("hold" if token == "hold" else "no hold")
        elif token == "180":
            parts.append("180°")
        elif token.startswith("lv") and token[2:].isdigit():
            parts.append(f"level {token[2:]}")
        elif token == "20g":
            parts.append("20G")
        elif token.startswith("g") and _is_number(token[1:]):
            parts.append("no gravity" if float(token[1:]) == 0 else f"gravity {token[1:]}")
        elif token:
            parts.append(token)
    return " · ".join(parts)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
