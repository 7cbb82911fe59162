"""The replay viewer's model: a replay played back tick by tick, with a jump to any placement. No drawing.

A `ReplayCursor` plays the replay once when it is made, noting for every placement the tick its piece spawned
and locked, the buttons pressed for it and its finesse faults, and keeps a copy of the game at each spawn, so a
jump to placement i is a copy plus nothing (and a jump to a tick is a copy plus the ticks since that spawn).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from game.engine import Game
from game.events import Locked, Undone
from game.handling import pressed_labels
from game.replay import Replay

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class PlacementSpan:
    index: int
    spawn_tick: int  # ticks played before the piece appeared (the game's `ticks` at its spawn)
    lock_tick: int
    presses: tuple[str, ...]
    finesse: int


class ReplayCursor:
    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.spans: list[PlacementSpan] = []
        self._checkpoints: list[Game] = []
        game = replay.new_game()
        for buttons in replay.precharge:
            game.precharge(buttons)
        self._start = copy.deepcopy(game)
        open_at: int | None = None
        presses: list[str] = []
        previous = 0
        for buttons in replay.inputs:
            if open_at is None and game.active is not None and not game.over:
                open_at = game.ticks
                presses = []
                checkpoint = copy.deepcopy(game)
            if open_at is not None:
                # "⤓" is missing from common fonts: the hard drop reads "drop" here
                presses += [("drop" if label == "⤓" else label) for label in pressed_labels(buttons, previous)]
            previous = buttons
            for event in game.tick(buttons):
                if isinstance(event, Locked) and open_at is not None:
                    index = game.stats.pieces - 1
                    del self.spans[index:], self._checkpoints[index:]
                    self.spans.append(PlacementSpan(index, open_at, event.tick, tuple(presses), event.finesse_faults))
                    self._checkpoints.append(checkpoint)
                    open_at = None
                elif isinstance(event, Undone):
                    open_at = None
        self.end_tick = len(replay.inputs)
        self.game = copy.deepcopy(self._start)

    @property
    def tick(self) -> int:
        return self.game.ticks

    @property
    def count(self) -> int:
        return len(self.spans)

    def placement_at(self, tick: int | None = None) -> int:
        """The placement being played at `tick` (the last one whose piece has spawned); -1 before the first."""
        tick = self.tick if tick is None else tick
        found = -1
        for span in self.spans:
            if span.spawn_tick <= tick:
                found = span.index
            else:
                break
        return found

    def seek_placement(self, index: int) -> None:
        """Show placement `index` as its piece spawned."""
        index = max(0, min(self.count - 1, index))
        if self.spans:
            self.game = copy.deepcopy(self._checkpoints[index])

    def seek_tick(self, tick: int) -> None:
        tick = max(0, min(self.end_tick, tick))
        index = self.placement_at(tick)
        self.game = copy.deepcopy(self._checkpoints[index] if index >= 0 else self._start)
        self.advance(tick - self.game.ticks)

    def advance(self, ticks: int) -> int:
        """Play up to `ticks` recorded ticks; returns how many were played (fewer at the end)."""
        played = 0
        while played < ticks and self.game.ticks < self.end_tick:
            self.game.tick(self.replay.inputs[self.game.ticks])
            played += 1
        return played

    @property
    def at_end(self) -> bool:
        return self.game.ticks >= self.end_tick
