"""The one place where keys and gamepad controls become virtual buttons.

Key names are pygame's (`pygame.key.name`), as stored in the settings ("left", "space", "left shift",
"ctrl+z"). A key resolves to a button when it goes down, and that button stays held until the same key goes
up, so OS key repeat changes nothing and a chord (ctrl+z) never also fires its plain key (z). Timing (DAS,
ARR, soft drop) is the engine's job: each tick the play scene asks for the held set with `tick_buttons()`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pygame

from game.handling import Button

if TYPE_CHECKING:
    from settings import Settings

# Settings button name -> engine button. The other buttons (pause, restart, ...) are scene actions.
GAME_BUTTONS: dict[str, Button] = {
    "move_left": Button.LEFT,
    "move_right": Button.RIGHT,
    "soft_drop": Button.SOFT_DROP,
    "hard_drop": Button.HARD_DROP,
    "rotate_cw": Button.ROTATE_CW,
    "rotate_ccw": Button.ROTATE_CCW,
    "rotate_180": Button.ROTATE_180,
    "hold": Button.HOLD,
    "undo": Button.UNDO,
    "redo": Button.REDO,
}
ACTION_LABELS: dict[str, str] = {
    "move_left": "Move left",
    "move_right": "Move right",
    "soft_drop": "Soft drop",
    "hard_drop": "Hard drop",
    "rotate_cw": "Rotate clockwise",
    "rotate_ccw": "Rotate counter-clockwise",
    "rotate_180": "Rotate 180",
    "hold": "Hold",
    "pause": "Pause",
    "restart": "Restart",
    "undo": "Undo",
    "redo": "Redo",
    "toggle_hint": "Toggle hint",
    "toggle_autoplay": "Toggle autoplay",
}
_MODIFIER_KEYS = {
    "ctrl": (pygame.K_LCTRL, pygame.K_RCTRL),
    "shift": (pygame.K_LSHIFT, pygame.K_RSHIFT),
    "alt": (pygame.K_LALT, pygame.K_RALT),
    "meta": (pygame.K_LMETA, pygame.K_RMETA, pygame.K_LGUI, pygame.K_RGUI),
}
_MOD_FLAGS = (
    ("ctrl", pygame.KMOD_CTRL),
    ("shift", pygame.KMOD_SHIFT),
    ("alt", pygame.KMOD_ALT),
    ("meta", pygame.KMOD_GUI | pygame.KMOD_META),
)

# Gamepad defaults (not rebindable yet): SDL's usual numbering on Xbox-style pads.
PAD_BUTTONS: dict[int, str] = {
    0: "rotate_ccw",
    1: "rotate_cw",
    2: "hold",
    3: "rotate_180",
    4: "hold",
    5: "hold",
    6: "restart",
    7: "pause",
}
PAD_HAT = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "soft_drop", (0, 1): "hard_drop"}
AXIS_DEAD_ZONE = 0.5


_PRETTY = {
    "escape": "Esc",
    "return": "Enter",
    "space": "Space",
    "ctrl": "Ctrl",
    "shift": "Shift",
    "alt": "Alt",
    "meta": "Meta",
    "left shift": "LShift",
    "right shift": "RShift",
    "left ctrl": "LCtrl",
    "right ctrl": "RCtrl",
    "backspace": "Backspace",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
}


def pretty_key(name: str) -> str:
    """A key name as players read it: 'ctrl+z' -> 'Ctrl+Z', 'escape' -> 'Esc'."""
    parts = name.split("+") if name != "+" else ["+"]
    return "+".join(_PRETTY.get(p, p.upper() if len(p) == 1 else p.title()) for p in parts)


def key_names(key: int, mod: int) -> tuple[str, str | None]:
    """(plain name, chord name or None) for a key event, e.g. (z, ctrl+z). Modifier keys never form chords."""
    name = pygame.key.name(key).lower()
    own = next((m for m, codes in _MODIFIER_KEYS.items() if key in codes), None)
    mods = [m for m, flag in _MOD_FLAGS if mod & flag and m != own]
    return name, ("+".join(mods + [name]) if mods else None)


class KeyMap:
    """Key name -> settings button name, built from `settings.keys` (a KeySettings)."""

    def __init__(self, bindings: Mapping[str, Sequence[str]]) -> None:
        self.bindings = {button: tuple(keys) for button, keys in bindings.items()}
        self.lookup: dict[str, str] = {}
        for button, keys in self.bindings.items():
            for key in keys:
                self.lookup.setdefault(key, button)

    @classmethod
    def from_settings(cls, settings: Settings) -> KeyMap:
        return cls(settings.keys.bindings())

    def resolve(self, key: int, mod: int = 0) -> str | None:
        """The button for a key press: the chord's if bound, else the plain key's, else None."""
        plain, chord = key_names(key, mod)
        if chord is not None and chord in self.lookup:
            return self.lookup[chord]
        return self.lookup.get(plain)

    def keys_for(self, button: str) -> tuple[str, ...]:
        return self.bindings.get(button, ())


class InputState:
    """Which buttons are held right now, from key and gamepad events."""

    def __init__(self, keymap: KeyMap) -> None:
        self.keymap = keymap
        self._held: dict[object, str] = {}  # source (key code, pad control) -> button name
        self._latched = Button.NONE  # pressed since the last tick: a tap shorter than a tick still counts
        self._released = Button.NONE  # released since the last tick
        self._sent = Button.NONE  # what the last tick got

    def clear(self) -> None:
        """Forget everything held (after a pause, a scene change or losing focus)."""
        self._held.clear()
        self._latched = self._released = self._sent = Button.NONE

    def _press(self, source: object, button: str | None) -> str | None:
        if button is None:
            return None
        repeat = self._held.get(source) == button
        self._held[source] = button
        if button in GAME_BUTTONS and not repeat:
            self._latched |= GAME_BUTTONS[button]
        return None if repeat else button

    def _release(self, source: object) -> None:
        button = self._held.pop(source, None)
        if button in GAME_BUTTONS:
            self._released |= GAME_BUTTONS[button]

    def handle(self, event: pygame.event.Event) -> str | None:
        """Track one event; returns the button newly pressed by it (None for repeats and releases)."""
        kind = event.type
        if kind == pygame.KEYDOWN:
            return self._press(("key", event.key), self.keymap.resolve(event.key, event.mod))
        if kind == pygame.KEYUP:
            self._release(("key", event.key))
        elif kind == pygame.JOYBUTTONDOWN:
            return self._press(("pad", event.instance_id, event.button), PAD_BUTTONS.get(event.button))
        elif kind == pygame.JOYBUTTONUP:
            self._release(("pad", event.instance_id, event.button))
        elif kind == pygame.JOYHATMOTION:
            source = ("hat", event.instance_id, event.hat)
            self._release(source)
            return self._press(source, PAD_HAT.get(tuple(event.value)))
        elif kind == pygame.JOYAXISMOTION and event.axis in (0, 1):
            source = ("axis", event.instance_id, event.axis)
            self._release(source)
            if abs(event.value) >= AXIS_DEAD_ZONE:
                negative = event.value < 0
                button = (
                    ("move_left" if negative else "move_right")
                    if event.axis == 0
                    else (None if negative else "soft_drop")
                )
                return self._press(source, button)
        elif kind in (pygame.WINDOWFOCUSLOST,):
            self.clear()
        return None

    def held_buttons(self) -> Button:
        held = Button.NONE
        for button in self._held.values():
            held |= GAME_BUTTONS.get(button, Button.NONE)
        return held

    def tick_buttons(self) -> Button:
        """The engine input for the next tick: what is held plus anything tapped since the last tick."""
        buttons = self.held_buttons() | self._latched
        # Released and pressed again since a tick that had it held: the engine must see one tick without
        # it, or the second press would look like the same hold. That press moves to the next tick.
        again = self._latched & self._released & self._sent
        buttons &= ~again
        self._latched = again
        self._released = Button.NONE
        self._sent = buttons
        return buttons


class Gamepads:
    """Opens joysticks as they are plugged in so their events arrive; absent pads are simply not used."""

    def __init__(self) -> None:
        self.pads: dict[int, object] = {}

    def handle(self, event: pygame.event.Event) -> None:
        try:
            if event.type == pygame.JOYDEVICEADDED:
                pad = pygame.joystick.Joystick(event.device_index)
                self.pads[pad.get_instance_id()] = pad
            elif event.type == pygame.JOYDEVICEREMOVED:
                self.pads.pop(event.instance_id, None)
        except pygame.error:
            pass  # a pad that vanished while opening is ignored
