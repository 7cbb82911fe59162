"""The settings screen and the key-rebinding screen. Every change is validated by the settings models and
saved at once (`app.update_settings` -> `settings.save_settings`); refusals are shown, never raised.

A value set by a STACKCOACH_* environment variable is shown with the variable's name and cannot be changed
here (the variable would win again on the next start, and overrides are never written to the file)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import pygame
from pydantic import ValidationError

from ai.protocol import ENGINES, KEY_MEANINGS, weight_names
from game.finesse import Key
from settings import BUTTONS, KeySettings, Settings, SettingsError, rebind
from ui import render as R
from ui.coach import KEY_ASCII, KEY_GLYPHS
from ui.input import ACTION_LABELS, key_names, pretty_key
from ui.menus import clipboard_text
from ui.scene import Scene

if TYPE_CHECKING:
    from ui.services import Services

GRAVITY_PRESETS = (0.0, 1 / 60, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
SDF_CHOICES: tuple[Any, ...] = (*range(1, 41), "instant")
PPS_CHOICES: tuple[Any, ...] = (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 60, 0)  # 0: as fast as possible
BUDGET_CHOICES: tuple[Any, ...] = (5, 10, 15, 25, 50, 100, 200, 500, 1000, 2000, 5000)


@dataclass(frozen=True)
class Row:
    group: str
    field: str
    label: str
    kind: str  # choice, bool, int, float, presets, text, action, header, info (a line to read, not a setting)
    options: tuple[Any, ...] = ()
    low: float = 0
    high: float = 0
    step: float = 1
    unit: str = ""
    help: str = ""


def legend_entries(glyphs: dict[Key, str] = KEY_GLYPHS) -> list[str]:
    """ "← move left", ... for every key a hint's key sequence can show, in the coach panel's order."""
    return [f"{glyphs[key]} {KEY_MEANINGS[key]}" for key in KEY_GLYPHS]


def _legend_rows() -> list[Row]:
    """The legend of the hint's key glyphs, three keys a line (HOLD is written out when a hint starts with it)."""
    entries = [*legend_entries(), "HOLD hold first"]
    lines = [entries[i : i + 4] for i in range(0, len(entries), 4)]
    return [
        Row("", "legend", "Hint keys" if n == 0 else "", "info", ("   ·   ".join(line),))
        for n, line in enumerate(lines)
    ]


def _rows() -> list[Row]:
    return [
        Row("", "", "Rules", "header"),
        Row(
            "rules",
            "randomizer",
            "Randomizer",
            "choice",
            ("7bag", "14bag", "random", "nes", "tgm"),
            help="How pieces are dealt: 7bag (every 7 pieces one of each), 14bag, random, nes, tgm.",
        ),
        Row(
            "rules",
            "rotation",
            "Rotation system",
            "choice",
            ("srs", "srs+", "none", "nrs"),
            help="Kick tables tried when a rotation is blocked: SRS (guideline), SRS+ (TETR.IO), none, NRS.",
        ),
        Row(
            "rules",
            "kick_file",
            "Custom kick file",
            "text",
            help="A kick table file (.toml or solution-finder .properties) that replaces the rotation system.",
        ),
        Row("rules", "allow_180", "180° rotation", "bool"),
        Row(
            "rules",
            "spin_rule",
            "Spins",
            "choice",
            ("tspin", "allspin", "none"),
            help="tspin: T-spins by the 3-corner rule; allspin: other pieces stuck after a rotation score a mini too.",
        ),
        Row("rules", "hold", "Hold", "bool"),
        Row(
            "rules",
            "previews",
            "Next previews",
            "int",
            low=0,
            high=6,
            help="How many upcoming pieces the queue shows (0-6).",
        ),
        Row(
            "rules",
            "lock_delay_mode",
            "Lock delay mode",
            "choice",
            ("move_reset", "step_reset", "infinite"),
            help="move_reset: moves reset the lock timer up to {move_reset_limit} times; step_reset: only falling "
            "resets it; infinite: a resting piece never locks by itself.",
        ),
        Row(
            "rules",
            "lock_delay",
            "Lock delay",
            "int",
            low=1,
            high=600,
            unit="frames",
            help="How long a piece may rest on the stack before it locks, in 60 Hz frames (30 = half a second).",
        ),
        Row(
            "rules",
            "gravity_mode",
            "Gravity",
            "choice",
            ("level", "fixed", "20g"),
            help="level: speed of the start level (marathon speeds up); fixed: the value below; 20g: instant.",
        ),
        Row(
            "rules",
            "fixed_gravity",
            "Fixed gravity",
            "presets",
            GRAVITY_PRESETS,
            unit="G",
            help="Cells per frame when gravity is fixed; 0 = pieces only fall when you drop them.",
        ),
        Row(
            "rules",
            "start_level",
            "Start level",
            "int",
            low=1,
            high=30,
            help="The level Marathon starts at (it speeds up from there); with Gravity at level, 40 Lines falls "
            "at that level's speed.",
        ),
        Row("", "", "Handling", "header"),
        Row(
            "handling",
            "unit",
            "Timing unit",
            "choice",
            ("ms", "frames"),
            help="Edit DAS, ARR and DCD in milliseconds or in 60 Hz frames (values are converted).",
        ),
        Row(
            "handling",
            "das",
            "DAS",
            "float",
            low=0,
            high=1000,
            help="Delayed auto shift: how long a move key is held before the piece starts sliding.",
        ),
        Row(
            "handling",
            "arr",
            "ARR",
            "float",
            low=0,
            high=500,
            help="Auto repeat rate: time between slides once DAS is charged; 0 = straight to the wall.",
        ),
        Row(
            "handling",
            "sdf",
            "Soft drop factor",
            "presets",
            SDF_CHOICES,
            help="Soft drop speed as a multiple of gravity (1-40) or instant.",
        ),
        Row(
            "handling",
            "dcd",
            "DCD",
            "float",
            low=0,
            high=1000,
            help="DAS cut delay: auto shift pauses this long after a rotation or a new piece.",
        ),
        Row("", "", "Display", "header"),
        Row("display", "ghost", "Ghost piece", "bool"),
        Row("display", "grid", "Grid", "bool"),
        Row(
            "display",
            "bag_divider",
            "Bag divider",
            "bool",
            help="Draw a line in the next queue where a new 7-bag starts.",
        ),
        Row(
            "display",
            "show_finesse",
            "Show finesse",
            "bool",
            help="Count finesse faults beside the field and flash one when a piece took more key presses than the "
            "fewest that reach its spot.",
        ),
        Row(
            "display",
            "scale",
            "Field scale",
            "float",
            low=0.5,
            high=1.0,
            step=0.05,
            help="Size of the play screen in the window (1.0 = as large as fits).",
        ),
        Row("", "", "Audio", "header"),
        Row("audio", "master_volume", "Master volume", "int", low=0, high=100, step=5, unit="%"),
        Row("audio", "sfx_volume", "Effects volume", "int", low=0, high=100, step=5, unit="%"),
        Row("audio", "mute", "Mute", "bool"),
        Row("", "", "Coach", "header"),
        Row(
            "ai",
            "hint_enabled",
            "Hint",
            "bool",
            help=(
                "Show the engine's suggested placement as a hatched ghost; {toggle_hint} turns it on and off in a game."
            ),
        ),
        Row(
            "ai",
            "show_key_sequence",
            "Show hint keys",
            "bool",
            help="List the keys that play the suggested placement beside the field (the legend is below).",
        ),
        Row(
            "ai",
            "pc_hints_enabled",
            "Perfect-clear hints",
            "bool",
            help="Show the solver's perfect-clear overlay and PC chance in every mode (always on in PC practice).",
        ),
        Row(
            "ai",
            "pc_think_ahead",
            "PC: think ahead",
            "bool",
            help="While you decide, the AI works out where the panel and your resting piece lead: the chance shows "
            "at once.",
        ),
        Row(
            "ai",
            "autoplay_pps",
            "Autoplay speed",
            "presets",
            PPS_CHOICES,
            help="Pieces per second when the engine plays ({toggle_autoplay}); max = as fast as it can.",
        ),
        Row(
            "ai",
            "engine",
            "Engine",
            "choice",
            ENGINES,
            help="beam: beam search over the next pieces (the default); mcts: Monte Carlo tree search.",
        ),
        Row(
            "ai",
            "weights",
            "Evaluation weights",
            "choice",
            weight_names(),
            help=(
                "How the engine judges a board: modern = guideline play (T-spins, B2B, PCs); the others play "
                "for survival."
            ),
        ),
        Row(
            "ai",
            "think_budget_ms",
            "Think budget",
            "presets",
            BUDGET_CHOICES,
            unit="ms",
            help="How long the engine thinks about each hint: more is stronger but slower.",
        ),
        *_legend_rows(),
        Row("", "", "Controls", "header"),
        Row("keys", "", "Key bindings…", "action"),
    ]


def show_value(row: Row, value: Any, settings: Settings) -> str:
    if row.kind == "info":
        return row.options[0]
    if row.field == "autoplay_pps":
        return "max (as fast as possible)" if value == 0 else f"{value:g} pieces/s"
    if row.kind == "bool":
        return "on" if value else "off"
    if row.kind == "text":
        return value or "(none — use the rotation system)"
    if row.field == "fixed_gravity":
        return "0 (no gravity)" if value == 0 else f"{value:.3g} G"
    if row.group == "handling" and row.field in ("das", "arr", "dcd"):
        return f"{value:g} {settings.handling.unit}"
    if isinstance(value, float):
        return f"{value:g}{(' ' + row.unit) if row.unit else ''}"
    return f"{value}{(' ' + row.unit) if row.unit else ''}"


def _glyph_font_path() -> str | None:
    """A font with the arrow glyphs (DejaVu Sans, as the coach panel uses); None: pygame's default font."""
    try:
        return pygame.font.match_font("dejavusans")
    except Exception:  # noqa: BLE001 - no font configuration: the plain labels are used
        return None


@lru_cache(maxsize=32)
def glyph_font(size: int) -> pygame.font.Font:
    return pygame.font.Font(_glyph_font_path(), size)


R.CACHE_HOOKS.append(glyph_font.cache_clear)


def blit_glyph_text(
    surface: pygame.Surface, text: str, pos: tuple[int, int], size: int, colour: tuple[int, int, int] = R.TEXT
) -> None:
    """Like `R.blit_text`, in the font that has the key glyphs."""
    surface.blit(glyph_font(size).render(text, True, colour), pos)


_ALT_GLYPHS = {"⤓": "⇓"}  # as in the coach panel: fonts without U+2913 usually have the double arrow


def legend_text(row: Row, size: int) -> str:
    """The legend line as it can be drawn at ``size``: each glyph the font has, else the same stand-in the
    coach panel draws for it (⇓ for ⤓, then the plain labels <, >, |<, CW...)."""
    text = row.options[0]
    font = glyph_font(size)
    missing = font.metrics("\ue000")[0]

    def printable(label: str) -> bool:
        return all(m is not None and m != missing for m in font.metrics(label))

    for key, glyph in KEY_GLYPHS.items():
        if not printable(glyph):
            alt = _ALT_GLYPHS.get(glyph, "")
            text = text.replace(f"{glyph} ", f"{alt if alt and printable(alt) else KEY_ASCII[key]} ")
    return text


def _short(message: str, limit: int = 160) -> str:
    """One status line: a parser's message can quote a whole (huge) line of the file."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _validation_text(error: ValidationError) -> str:
    first = error.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def _backdrop(surface: pygame.Surface, view: R.View) -> None:
    """Settings screens are overlays: the scene below (title or paused game) shows through, dimmed."""
    R.dim_overlay(surface, 215)
    R.panel(surface, view.rect(50, 20, 1180, 690), (18, 20, 28), R.PANEL_EDGE, 1)


class SettingsScene(Scene):
    name = "settings"
    transparent = True

    def __init__(self, app: Services, note: str = "") -> None:
        super().__init__(app)
        self.rows = _rows()
        self.index = 1
        self.note = note
        self.status: tuple[str, tuple[int, int, int]] | None = None
        self.editing_text: str | None = None

    # --- changing values ----------------------------------------------------------------------------------
    def _current(self, row: Row) -> Any:
        return getattr(getattr(self.app.settings, row.group), row.field)

    def overridden_by(self, group: str, field: str) -> str | None:
        """The STACKCOACH_* variable that sets this value, if one does."""
        return self.app.overrides.get(f"{group}.{field}")

    def help_for(self, row: Row) -> str:
        """The row's help with the player's keys filled in ("{toggle_hint}" -> "H")."""
        if not row.help:
            return ""
        keys = self.app.settings.keys.bindings()
        names = {button: " or ".join(pretty_key(k) for k in keys[button]) or "(no key)" for button in keys}
        names["move_reset_limit"] = str(self.app.settings.rules.move_reset_limit)  # (a rules value, not a key)
        try:
            return row.help.format(**names)
        except (KeyError, IndexError, ValueError):  # braces that are not a button's name: shown as written
            return row.help

    def apply(self, group: str, changes: dict[str, Any]) -> bool:
        """Validate and save a change to one group; shows the outcome. True if saved. A change to a value an
        environment variable sets is refused (the variable would win again on the next start)."""
        settings = self.app.settings
        old = getattr(settings, group)
        changed = [name for name, value in changes.items() if getattr(old, name) != value]
        for name in changed:
            variable = self.overridden_by(group, name)
            if variable is not None:
                row = next((r for r in self.rows if (r.group, r.field) == (group, name)), None)
                label = row.label if row else f"{group}.{name}"
                self.status = (f"{label} is set by {variable}; unset that variable to change it here", R.BAD)
                return False
        try:
            new_group = type(old).model_validate({**old.model_dump(), **changes})
        except ValidationError as error:
            self.status = (_validation_text(error), R.BAD)
            return False
        problem = self.app.update_settings(settings.model_copy(update={group: new_group}))
        self.status = (problem, R.BAD) if problem else (f"saved to {self.app.settings_file}", R.GOOD)
        return problem is None

    def _step(self, row: Row, direction: int, big: bool) -> None:
        value = self._current(row)
        if row.kind == "bool":
            self.apply(row.group, {row.field: not value})
        elif row.kind in ("choice", "presets"):
            options = row.options
            index = options.index(value) if value in options else 0
            new = options[(index + direction) % len(options)]
            changes = {row.field: new}
            if row.group == "handling" and row.field == "unit" and new != value:
                changes.update(self._convert_units(value, new))
            self.apply(row.group, changes)
        elif row.kind in ("int", "float"):
            step = row.step * (10 if big else 1)
            high = row.high
            if row.group == "handling":
                high = (
                    min(row.high, {"das": 60, "arr": 30, "dcd": 60}[row.field])
                    if self.app.settings.handling.unit == "frames"
                    else row.high
                )
            new = min(high, max(row.low, round(value + direction * step, 4)))
            self.apply(row.group, {row.field: int(new) if row.kind == "int" else new})

    def _convert_units(self, old: str, new: str) -> dict[str, float]:
        """Keep the same durations when switching between milliseconds and frames."""
        h = self.app.settings.handling
        factor = 60 / 1000 if (old, new) == ("ms", "frames") else 1000 / 60
        return {name: round(getattr(h, name) * factor, 1) for name in ("das", "arr", "dcd")}

    def _activate(self, row: Row) -> None:
        if row.kind == "action":
            self.app.scenes.push(RebindScene(self.app))
        elif row.kind == "text":
            self.editing_text = self._current(row) or ""
            pygame.key.start_text_input()
        else:
            self._step(row, 1, False)

    def _finish_text(self) -> None:
        row = self.rows[self.index]
        text = (self.editing_text or "").strip()
        self.editing_text = None
        pygame.key.stop_text_input()
        if text:
            from game.rules import Rules

            try:
                Rules.named(text)
            except (OSError, ValueError) as error:
                self.status = (_short(f"kick file not used: {error}"), R.BAD)
                return
            except RecursionError:  # tomllib on a deeply nested file
                self.status = (f"kick file not used: {text}: nested too deeply to read", R.BAD)
                return
            except Exception as error:  # noqa: BLE001 - whatever the parser raises, the screen keeps working
                self.status = (_short(f"kick file not used: {text}: {type(error).__name__}: {error}"), R.BAD)
                return
        self.apply(row.group, {row.field: text or None})

    # --- scene ----------------------------------------------------------------------------------------------
    def _move(self, direction: int) -> None:
        index = self.index
        while True:
            index = (index + direction) % len(self.rows)
            if self.rows[index].kind not in ("header", "info"):
                self.index = index
                return

    def handle(self, event: pygame.event.Event) -> None:  # noqa: C901 - one branch per key, the text box first
        if self.editing_text is not None:
            if event.type == pygame.TEXTINPUT:
                self.editing_text += event.text
            elif event.type == pygame.KEYDOWN:
                if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                    self._finish_text()
                elif event.key == pygame.K_ESCAPE:
                    self.editing_text = None
                    pygame.key.stop_text_input()
                elif event.key == pygame.K_BACKSPACE:
                    self.editing_text = self.editing_text[:-1]
                elif event.key == pygame.K_v and event.mod & pygame.KMOD_CTRL:
                    self.editing_text += clipboard_text().strip()
            return
        if event.type != pygame.KEYDOWN:
            return
        row = self.rows[self.index]
        big = bool(event.mod & pygame.KMOD_SHIFT)
        if event.key == pygame.K_ESCAPE:
            self.app.scenes.pop()
        elif event.key in (pygame.K_UP, pygame.K_w):
            self._move(-1)
        elif event.key in (pygame.K_DOWN, pygame.K_s):
            self._move(1)
        elif event.key in (pygame.K_LEFT, pygame.K_a):
            if row.kind not in ("action", "text"):
                self._step(row, -1, big)
        elif event.key in (pygame.K_RIGHT, pygame.K_d):
            if row.kind not in ("action", "text"):
                self._step(row, 1, big)
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            variable = self.overridden_by(row.group, row.field) if row.kind == "text" else None
            if variable is not None:
                self.status = (f"{row.label} is set by {variable}; unset that variable to change it here", R.BAD)
            else:
                self._activate(row)
        elif event.key in (pygame.K_DELETE, pygame.K_BACKSPACE) and row.kind == "text":
            self.apply(row.group, {row.field: None})

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        _backdrop(surface, view)
        R.blit_text(surface, "Settings", view.pt(80, 40), view.font_size(60), R.ACCENT)
        if self.note:
            R.blit_text(surface, self.note, view.pt(380, 58), view.font_size(24), R.DIM)
        size = view.font_size(26)
        step = 30
        visible = 17
        first = max(0, min(self.index - visible // 2, len(self.rows) - visible))
        y = 110
        settings = self.app.settings
        for i in range(first, min(len(self.rows), first + visible)):
            row = self.rows[i]
            if row.kind == "header":
                R.blit_text(surface, row.label.upper(), view.pt(80, y + 6), view.font_size(22), R.ACCENT)
                y += step
                continue
            if row.kind == "info":
                R.blit_text(surface, row.label, view.pt(100, y), size, R.DIM)
                glyph_size = view.font_size(19)  # DejaVu runs larger than pygame's default font
                text = legend_text(row, glyph_size)
                blit_glyph_text(surface, text, view.pt(300, y + 1), glyph_size)
                y += step
                continue
            chosen = i == self.index
            if chosen:
                pygame.draw.rect(surface, (44, 48, 66), view.rect(70, y - 3, 900, step - 2), border_radius=view.s(5))
            R.blit_text(surface, row.label, view.pt(100, y), size, R.TEXT if chosen else R.DIM)
            if row.kind == "action":
                value = "Enter to open"
            elif chosen and self.editing_text is not None:
                value = self.editing_text + "_"
            else:
                value = show_value(row, self._current(row), settings)
            variable = self.overridden_by(row.group, row.field)
            if variable is not None:
                value = f"{value}  (set by {variable})"
            arrows = chosen and row.kind not in ("action", "text", "header") and variable is None
            R.blit_text(
                surface, f"< {value} >" if arrows else value, view.pt(460, y), size, R.TEXT if chosen else R.DIM
            )
            y += step
        row_help = self.help_for(self.rows[self.index])
        if row_help:
            R.blit_text(surface, row_help, view.pt(80, 634), view.font_size(22), R.TEXT)
        help_text = "Up/Down choose · Left/Right change (Shift: x10) · Enter toggle/edit · Esc back"
        if self.rows[self.index].kind == "text":
            help_text = "Enter: type a kick file path (.toml or .properties), Enter to save · Delete clears"
        R.blit_text(surface, help_text, view.pt(80, 660), view.font_size(22), R.DIM)
        if self.status:
            R.blit_text(surface, self.status[0], view.pt(80, 688), view.font_size(22), self.status[1])


class RebindScene(Scene):
    """Lists every button with its keys. Enter then a key adds it; Backspace removes the last one; a key that
    another action uses is refused with a message naming both."""

    name = "rebind"
    transparent = True

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        self.index = 0
        self.capturing = False
        self.pending_modifier: tuple[int, int] | None = None
        self.status: tuple[str, tuple[int, int, int]] | None = None
        self.items = list(BUTTONS) + ["__defaults__"]

    def overridden_by(self, button: str) -> str | None:
        """The STACKCOACH_KEYS__* variable that sets this button's keys, if one does."""
        return self.app.overrides.get(f"keys.{button}")

    def _refuse_override(self, button: str) -> bool:
        variable = self.overridden_by(button)
        if variable is None:
            return False
        self.status = (
            f"{ACTION_LABELS.get(button, button)} keys are set by {variable}; unset that variable to change them here",
            R.BAD,
        )
        return True

    def bind(self, button: str, name: str) -> bool:
        """Add key `name` to `button`; refuses (with a message) a key that another action uses."""
        if self._refuse_override(button):
            return False
        settings = self.app.settings
        owner = settings.keys.button_for(name)
        if owner is not None and owner != button:
            message = (
                f"{pretty_key(name)} is already bound to {ACTION_LABELS.get(owner, owner)} — "
                f"not bound to {ACTION_LABELS.get(button, button)}"
            )
            self.status = (message, R.BAD)
            return False
        if owner == button:
            self.status = (f"{pretty_key(name)} is already bound to {ACTION_LABELS.get(button, button)}", R.DIM)
            return True
        try:
            new = rebind(settings, button, [*settings.keys.bindings()[button], name])
        except SettingsError as error:
            self.status = (str(error), R.BAD)
            return False
        problem = self.app.update_settings(new)
        self.status = (
            (problem, R.BAD)
            if problem
            else (f"{pretty_key(name)} now does {ACTION_LABELS.get(button, button)}", R.GOOD)
        )
        return problem is None

    def remove_last(self, button: str) -> None:
        """Unbind the button's last key (pause always keeps one, or a game could not be left)."""
        if self._refuse_override(button):
            return
        keys = self.app.settings.keys.bindings()[button]
        if not keys:
            self.status = (f"{ACTION_LABELS.get(button, button)} has no keys", R.DIM)
            return
        if button == "pause" and len(keys) == 1:
            self.status = ("Pause needs at least one key: add another key first, then remove this one", R.BAD)
            return
        problem = self.app.update_settings(rebind(self.app.settings, button, keys[:-1]))
        self.status = (
            (problem, R.BAD)
            if problem
            else (f"{pretty_key(keys[-1])} no longer does {ACTION_LABELS.get(button, button)}", R.DIM)
        )

    def handle(self, event: pygame.event.Event) -> None:
        if self.capturing:
            self._capture(event)
            return
        if event.type != pygame.KEYDOWN:
            return
        item = self.items[self.index]
        if event.key == pygame.K_ESCAPE:
            self.app.scenes.pop()
        elif event.key in (pygame.K_UP, pygame.K_w):
            self.index = (self.index - 1) % len(self.items)
        elif event.key in (pygame.K_DOWN, pygame.K_s):
            self.index = (self.index + 1) % len(self.items)
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            if item == "__defaults__":
                self.restore_defaults()
            elif not self._refuse_override(item):
                self.capturing = True
                self.status = None
        elif event.key in (pygame.K_BACKSPACE, pygame.K_DELETE) and item != "__defaults__":
            self.remove_last(item)

    def restore_defaults(self) -> None:
        """Every button back to its default keys, except those an environment variable sets."""
        current = self.app.settings.keys
        kept = {b: getattr(current, b) for b in BUTTONS if self.overridden_by(b) is not None}
        try:
            keys = KeySettings.model_validate({**KeySettings().model_dump(), **kept})
        except ValidationError as error:
            self.status = (f"default keys not restored: {_validation_text(error)}", R.BAD)
            return
        problem = self.app.update_settings(self.app.settings.model_copy(update={"keys": keys}))
        note = " (keys set by environment variables kept)" if kept else ""
        self.status = (problem, R.BAD) if problem else (f"default keys restored{note}", R.GOOD)

    def _capture(self, event: pygame.event.Event) -> None:
        button = self.items[self.index]
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.capturing = False
                self.pending_modifier = None
                self.status = ("cancelled", R.DIM)
                return
            plain, chord = key_names(event.key, event.mod)
            if plain in (
                "left ctrl",
                "right ctrl",
                "left shift",
                "right shift",
                "left alt",
                "right alt",
                "left meta",
                "right meta",
                "left gui",
                "right gui",
            ):
                self.pending_modifier = (event.key, event.mod)  # a modifier alone binds on release
                return
            self.capturing = False
            self.pending_modifier = None
            self.bind(button, chord or plain)
        elif event.type == pygame.KEYUP and self.pending_modifier and event.key == self.pending_modifier[0]:
            self.capturing = False
            self.pending_modifier = None
            self.bind(button, key_names(event.key, 0)[0])

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        _backdrop(surface, view)
        R.blit_text(surface, "Key bindings", view.pt(80, 40), view.font_size(60), R.ACCENT)
        size = view.font_size(26)
        y = 110
        bindings = self.app.settings.keys.bindings()
        for i, item in enumerate(self.items):
            chosen = i == self.index
            if chosen:
                pygame.draw.rect(surface, (44, 48, 66), view.rect(70, y - 3, 900, 30), border_radius=view.s(5))
            if item == "__defaults__":
                R.blit_text(surface, "Restore default keys", view.pt(100, y), size, R.TEXT if chosen else R.DIM)
            else:
                R.blit_text(surface, ACTION_LABELS.get(item, item), view.pt(100, y), size, R.TEXT if chosen else R.DIM)
                keys = ", ".join(pretty_key(k) for k in bindings[item]) or "(none)"
                if self.overridden_by(item) is not None:
                    keys += f"  (set by {self.overridden_by(item)})"
                if chosen and self.capturing:
                    keys = "press a key…  (Esc cancels)"
                R.blit_text(surface, keys, view.pt(460, y), size, R.ACCENT if chosen and self.capturing else R.TEXT)
            y += 34
        R.blit_text(
            surface,
            "Enter: add a key · Backspace: remove the last key · Esc back",
            view.pt(80, 660),
            view.font_size(22),
            R.DIM,
        )
        if self.status:
            R.blit_text(surface, self.status[0], view.pt(80, 688), view.font_size(22), self.status[1])
