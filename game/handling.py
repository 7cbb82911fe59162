"""Player handling: virtual buttons per tick, and the DAS / ARR / DCD / soft-drop timing players configure.

Everything is counted in 60 Hz ticks; fractional settings (ARR 0.5 = two cells a tick) are kept exact by
working in integer milli-ticks, so the same inputs always give the same moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntFlag

MILLI = 1000
INSTANT_STEPS = 10  # more than any piece can move on a 10-wide field


class Button(IntFlag):
    """Virtual buttons; a tick's input is the set of buttons held during it."""

    NONE = 0
    LEFT = 1
    RIGHT = 2
    SOFT_DROP = 4
    HARD_DROP = 8
    ROTATE_CW = 16
    ROTATE_CCW = 32
    ROTATE_180 = 64
    HOLD = 128
    UNDO = 256
    REDO = 512


# How the buttons of a placement read in a replay's key list, in this order (HOLD first, the drop last).
BUTTON_LABELS = (
    (Button.HOLD, "HOLD"),
    (Button.LEFT, "←"),
    (Button.RIGHT, "→"),
    (Button.ROTATE_CW, "↻"),
    (Button.ROTATE_CCW, "↺"),
    (Button.ROTATE_180, "180"),
    (Button.SOFT_DROP, "↓"),
    (Button.HARD_DROP, "⤓"),
)


def pressed_labels(buttons: int, before: int) -> list[str]:
    """Labels of the buttons held now that were not held the tick before (new presses)."""
    new = buttons & ~before
    return [label for button, label in BUTTON_LABELS if new & button]


@dataclass(frozen=True)
class Handling:
    """Timing in ticks (1/60 s). arr = 0 means instant; sdf = None means instant soft drop.

    sdf is a factor over gravity (at least 1/60 cells per tick), as in TETR.IO.
    """

    das: float = 10.0
    arr: float = 2.0
    sdf: float | None = 20.0
    dcd: float = 0.0

    def __post_init__(self) -> None:
        for name, low, high in (("das", 0, 600), ("arr", 0, 600), ("dcd", 0, 600)):
            value = getattr(self, name)
            if not (low <= value <= high):
                raise ValueError(f"handling.{name} = {value} is out of range ({low}..{high} ticks)")
        if self.sdf is not None and not (1 <= self.sdf <= 1000):
            raise ValueError(f"handling.sdf = {self.sdf} is out of range (1..1000, or None for instant)")


class HorizontalTimer:
    """Turns held left/right buttons into cell steps: one on press, then after DAS one every ARR."""

    def __init__(self, handling: Handling) -> None:
        self._das = round(handling.das * MILLI)
        self._arr = round(handling.arr * MILLI)
        self._dcd = round(handling.dcd * MILLI)
        self.direction = 0  # -1 left, 1 right, 0 none
        self._held_for = 0  # milli-ticks the active direction has been held, past its press
        self._auto_steps = 0  # auto-repeat steps already produced for this hold
        self._pause = 0  # DAS cut: milli-ticks of auto-repeat still suspended

    def cut(self) -> None:
        """DAS cut delay: suspend auto-repeat after a rotation or a new piece."""
        if self._dcd and self.direction != 0:
            self._pause = self._dcd

    def step(self, held: Button, pressed: Button) -> int:
        """Signed number of cells to try moving this tick (INSTANT_STEPS means "to the wall")."""
        left, right = bool(held & Button.LEFT), bool(held & Button.RIGHT)
        newly = 0
        if pressed & Button.LEFT and not pressed & Button.RIGHT:
            newly = -1
        elif pressed & Button.RIGHT and not pressed & Button.LEFT:
            newly = 1
        elif pressed & Button.LEFT and pressed & Button.RIGHT:
            newly = 0  # both in the same tick: neither wins
        if newly:
            self.direction, self._held_for, self._auto_steps = newly, 0, 0
            return newly
        # The active direction was released: fall back to the other one if it is still held (it re-charges).
        if self.direction == -1 and not left:
            self.direction, self._held_for, self._auto_steps = (1 if right else 0), 0, 0
        elif self.direction == 1 and not right:
            self.direction, self._held_for, self._auto_steps = (-1 if left else 0), 0, 0
        if self.direction == 0:
            return 0
        if self._pause > 0:
            self._pause -= MILLI
            return 0
        self._held_for += MILLI
        if self._held_for < self._das:
            return 0
        if self._arr == 0:
            return self.direction * INSTANT_STEPS
        total = 1 + (self._held_for - self._das) // self._arr
        steps = total - self._auto_steps
        self._auto_steps = total
        return self.direction * steps
