"""Turn a key sequence (from the finesse search or the AI) into per-tick button states for `Game.tick`.

This is how the bot plays through the same input path as a person: it presses buttons, and the engine's
handling (DAS, ARR, soft drop) moves the piece. Held keys (DAS, soft drop) are held until the piece has got
where holding takes it, so the executor works under any handling settings.
"""

from __future__ import annotations

from collections.abc import Sequence

from game.engine import Game
from game.finesse import Key
from game.handling import Button
from game.movement import drop_y, slide

_TAP_BUTTON = {
    Key.LEFT: Button.LEFT,
    Key.RIGHT: Button.RIGHT,
    Key.CW: Button.ROTATE_CW,
    Key.CCW: Button.ROTATE_CCW,
    Key.FLIP: Button.ROTATE_180,
    Key.HARD_DROP: Button.HARD_DROP,
}


class KeyExecutor:
    """Feeds one placement's keys to a game, one button press per tick (optionally HOLD first).

    Call `buttons(game)` once per tick and pass the result to `game.tick`; `done` turns True after the last key.
    `gap` extra idle ticks between keys slow it down to a human pace.
    """

    def __init__(self, keys: Sequence[Key], *, hold_first: bool = False, gap: int = 0) -> None:
        self._steps: list[Key | str] = (["hold"] if hold_first else []) + list(keys)
        self._index = 0
        self._gap = gap
        self._wait = 0
        self._last: Button = Button.NONE
        self._holding = False
        self.done = not self._steps

    def buttons(self, game: Game) -> Button:
        if self.done or game.active is None:
            self._last = Button.NONE
            return Button.NONE
        if self._wait > 0:
            self._wait -= 1
            self._last = Button.NONE
            return Button.NONE
        self._last = game.held_buttons  # whatever was held last tick, by us or anyone else
        step = self._steps[self._index]
        active = game.active
        bits = game.board.bits
        if step in (Key.DAS_LEFT, Key.DAS_RIGHT, Key.SOFT_DROP):
            if step is Key.SOFT_DROP:
                button = Button.SOFT_DROP
                arrived = drop_y(bits, active.piece, active.rotation, active.x, active.y) == active.y
            else:
                direction = -1 if step is Key.DAS_LEFT else 1
                button = Button.LEFT if direction < 0 else Button.RIGHT
                arrived = slide(bits, active.piece, active.rotation, active.x, active.y, direction) == active.x
            if arrived:
                self._holding = False
                return self._advance()
            if not self._holding and self._last & button:
                return self._release()  # the button must come up before it can be pressed again
            self._holding = True
            self._last = button
            return button
        button = Button.HOLD if step == "hold" else _TAP_BUTTON[step]  # type: ignore[index]
        if self._last & button:
            return self._release()  # the same button twice in a row needs a release in between
        self._index += 1
        self.done = self._index >= len(self._steps)
        self._wait = self._gap
        self._last = button
        return button

    def _release(self) -> Button:
        self._last = Button.NONE
        return Button.NONE

    def _advance(self) -> Button:
        self._index += 1
        self.done = self._index >= len(self._steps)
        self._wait = self._gap
        self._last = Button.NONE
        return Button.NONE


def play_keys(game: Game, keys: Sequence[Key], *, hold_first: bool = False, max_ticks: int = 2000) -> list:
    """Run the keys on the game until the piece locks (or max_ticks pass); returns all events."""
    executor = KeyExecutor(keys, hold_first=hold_first)
    events: list = []
    start_pieces = game.stats.pieces
    for _ in range(max_ticks):
        events.extend(game.tick(executor.buttons(game)))
        if game.stats.pieces > start_pieces or game.over:
            break
    return events
